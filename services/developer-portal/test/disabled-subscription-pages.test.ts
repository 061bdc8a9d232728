// The pages of a disabled subscription: they say that nothing is sent and that its pending deliveries
// are held (not "next attempt" at a time long past), and offer no replay, which the API refuses (409
// webhook_disabled; one posted anyway shows the API's reason), but still a test event (an endpoint
// is checked before it is enabled).
// The portal runs in-process on the real Redis; the gateway is a local HTTP server.
import { randomBytes } from 'node:crypto';
import type { RunningPortal } from '../src';
import {
  adminSession,
  startStubGateway,
  stubSubscription,
  startTestPortal,
  testSessions,
  type StubAnswer,
  type StubGateway,
} from './support/portal-test-kit';

const store = testSessions('portal-disabled');
let portal: RunningPortal;
let gateway: StubGateway;

const subscription = stubSubscription({ status: 'disabled' });
const pending = {
  id: 'whdel_1',
  object: 'webhook_delivery',
  subscription_id: 'we_1',
  event_id: 'evt_1',
  event_type: 'order.submitted',
  status: 'pending',
  attempts: [
    {
      attempted_at: '2026-11-20T00:00:01.000Z',
      status_code: 503,
      latency_ms: 12,
      error: 'receiver answered 503',
      response_excerpt: null,
    },
  ],
  next_attempt_at: '2026-11-20T00:00:31.000Z',
  created_at: '2026-11-20T00:00:00.000Z',
};
const disabledError = {
  error: {
    type: 'invalid_request',
    code: 'webhook_disabled',
    message:
      'This webhook subscription is disabled, so nothing is sent to it: enable it (status "enabled") before replaying its deliveries',
  },
};

beforeAll(async () => {
  const answers: Record<string, StubAnswer> = {
    'GET /v1/webhooks/we_1': { body: subscription },
    'GET /v1/webhooks/we_1/deliveries': {
      body: {
        object: 'list',
        url: '/v1/webhooks/we_1/deliveries',
        data: [pending],
        has_more: false,
        next_cursor: null,
      },
    },
    'GET /v1/webhooks/we_1/deliveries/whdel_1': { body: pending },
    'POST /v1/webhooks/we_1/deliveries/whdel_1/replay': { status: 409, body: disabledError },
  };
  gateway = await startStubGateway(({ method, url }) => answers[`${method} ${url.split('?')[0]}`]);
  portal = await startTestPortal(store, { publicUrl: 'http://127.0.0.1:18699', gatewayUrl: gateway.url });
});

afterAll(async () => {
  await portal?.stop();
  await gateway?.close();
  await store.close();
});

const csrfToken = randomBytes(16).toString('base64url');
async function get(path: string): Promise<string> {
  const cookie = `portal_session=${await store.sessions.create(adminSession({ csrfToken }))}`;
  const res = await fetch(`${portal.url}${path}`, { headers: { cookie } });
  expect(res.status).toBe(200);
  return res.text();
}

it('the subscription page says nothing is sent and offers a test event but no replay', async () => {
  const page = await get('/webhooks/we_1');
  expect(page).toContain('no event is sent to this endpoint');
  expect(page).toMatch(/<button[^>]*>\s*Enable\s*<\/button>/);
  expect(page).toContain('Send a test event');
  expect(page).not.toContain('Replay failed deliveries');
});

it('a pending delivery of a disabled subscription is shown held, not due at a time long past', async () => {
  for (const page of [
    await get('/webhooks/we_1/deliveries'),
    await get('/webhooks/we_1/deliveries/whdel_1'),
  ]) {
    expect(page).toContain('held: the subscription is disabled');
    expect(page).not.toContain('2026-11-20 00:00:31');
    expect(page).toContain('Pending deliveries are held');
    expect(page).not.toContain('Replay this delivery');
  }
});

it('a replay posted anyway shows the reason the API refused it', async () => {
  const cookie = `portal_session=${await store.sessions.create(adminSession({ csrfToken }))}`;
  const res = await fetch(`${portal.url}/webhooks/we_1/deliveries/whdel_1/replay`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
    body: new URLSearchParams({ csrf_token: csrfToken }).toString(),
  });
  expect(res.status).toBe(409);
  const page = await res.text();
  expect(page).toMatch(/<h1[^>]*>This request was refused<\/h1>/);
  expect(page).toContain('This webhook subscription is disabled, so nothing is sent to it');
});
