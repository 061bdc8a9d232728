// Portal pages over a recording gateway: an API refusal shown as such; the replay of a range
// replays the range the dry run counted.
// The portal runs in-process on the real Redis; the gateway is a local HTTP server that records
// what the portal asks of it.
import { randomBytes } from 'node:crypto';
import type { RunningPortal } from '../src';
import {
  adminSession,
  startStubGateway,
  stubSubscription,
  startTestPortal,
  testSessions,
  type StubGateway,
} from './support/portal-test-kit';

const store = testSessions('portal-replay');
let portal: RunningPortal;
let gateway: StubGateway;
/** Bodies of the replay requests the gateway received. */
const replays: { since: string; until?: string; dry_run: boolean }[] = [];

const subscription = stubSubscription();

beforeAll(async () => {
  gateway = await startStubGateway(({ method, url, body }) => {
    if (method === 'GET' && url === '/v1/webhooks/we_1') return { body: subscription };
    if (method === 'GET' && url.startsWith('/v1/webhooks?')) {
      return {
        status: 422,
        body: {
          error: {
            type: 'invalid_request',
            code: 'invalid_value',
            message: 'starting_after is not a cursor this API returned (use next_cursor)',
            param: 'starting_after',
          },
        },
      };
    }
    if (method === 'POST' && url === '/v1/webhooks/we_1/replay') {
      const replay = JSON.parse(body) as (typeof replays)[number];
      replays.push(replay);
      return { body: { object: 'webhook_replay', count: 2, dry_run: replay.dry_run } };
    }
    return undefined;
  });
  portal = await startTestPortal(store, { publicUrl: 'http://127.0.0.1:18698', gatewayUrl: gateway.url });
});

afterAll(async () => {
  await portal?.stop();
  await gateway?.close();
  await store.close();
});

async function adminCookie(csrfToken?: string): Promise<string> {
  return `portal_session=${await store.sessions.create(adminSession(csrfToken ? { csrfToken } : {}))}`;
}

it('a request the API refuses (422) is shown as refused, with its reason, not as "Something went wrong"', async () => {
  const res = await fetch(`${portal.url}/webhooks?starting_after=garbage`, {
    headers: { cookie: await adminCookie() },
  });
  expect(res.status).toBe(422);
  const page = await res.text();
  expect(page).toMatch(/<h1[^>]*>This request was refused<\/h1>/);
  expect(page).toContain('starting_after is not a cursor this API returned');
  expect(page).not.toContain('Something went wrong');
});

it('with "until" left empty, the confirmation replays the range the dry run counted, not one up to a later now', async () => {
  const csrfToken = randomBytes(16).toString('base64url');
  const cookie = await adminCookie(csrfToken);
  const post = (form: Record<string, string>) =>
    fetch(`${portal.url}/webhooks/we_1/replay`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({ csrf_token: csrfToken, ...form }).toString(),
    });

  const before = Date.now();
  const dryRun = await post({ dry_run: 'true', since: '2026-11-24T00:00', until: '' });
  expect(dryRun.status).toBe(200);
  const page = await dryRun.text();
  expect(page).toMatch(/<strong>2<\/strong> failed deliveries/);
  // The dry run counted up to a fixed moment...
  const counted = replays[0]!;
  expect(counted).toMatchObject({ since: '2026-11-24T00:00:00.000Z', dry_run: true });
  expect(Date.parse(counted.until!)).toBeGreaterThanOrEqual(before - 1000);
  // ...and the confirmation form carries that moment, so the replay is of the same range.
  const confirm = /<form method="post" action="\/webhooks\/we_1\/replay">([\s\S]*?)<\/form>/g;
  const forms = [...page.matchAll(confirm)].map((m) => m[1]!);
  const confirmForm = forms.find((f) => f.includes('name="dry_run" value="false"'))!;
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(confirmForm)?.[1] ?? '';
  await new Promise((resolve) => setTimeout(resolve, 20));
  const replayed = await post({ dry_run: 'false', since: field('since'), until: field('until') });
  expect(replayed.status).toBe(303);
  expect(replays[1]).toEqual({ since: counted.since, until: counted.until, dry_run: false });
});

describe('a mistyped time is refused, never dropped', () => {
  it('a deliveries filter that is not a real date and time answers 422 saying which one', async () => {
    const res = await fetch(`${portal.url}/webhooks/we_1/deliveries?created_after=2026-02-30T10:00`, {
      headers: { cookie: await adminCookie() },
    });
    expect(res.status).toBe(422);
    const page = await res.text();
    expect(page).toMatch(/Created from.{0,12} is not a date and time/);
    expect(page).not.toMatch(/Created before.{0,12} is not/);
  });

  it('a replay whose end is mistyped replays nothing (it is not read as "up to now")', async () => {
    const csrfToken = randomBytes(16).toString('base64url');
    const cookie = await adminCookie(csrfToken);
    const before = replays.length;
    const res = await fetch(`${portal.url}/webhooks/we_1/replay`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      body: new URLSearchParams({
        csrf_token: csrfToken,
        dry_run: 'false',
        since: '2026-11-24T00:00',
        until: '2026-11-24T25:00',
      }).toString(),
    });
    expect(res.status).toBe(422);
    expect(await res.text()).toContain('The end of the range is not a date and time');
    expect(replays).toHaveLength(before);
  });
});
