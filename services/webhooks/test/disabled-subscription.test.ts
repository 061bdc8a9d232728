// A disabled subscription gets no request at all: its deliveries already queued or waiting for a
// retry are held (pending, no attempt) and go out soon after it is enabled again; one whose 24 h
// window ends while it is held turns `failed` (and can be replayed once it is enabled). A replay of
// a disabled subscription is 409 `webhook_disabled`; a test event still goes (it checks an endpoint
// before it is enabled). On a clock 20,000 times faster
// than real time (24 h = 4.3 s, 30 s = 1.5 ms).
import { waitUntil } from '@ordering/testing';
import { HELD_PAST_HORIZON_ERROR } from '../src/domain/held-deliveries';
import { disconnectProducer, type Harness, startHarness } from './support/harness';
import { type Answer, type Receiver, startReceiver } from './support/receiver';

let h: Harness;
let receiver: Receiver;

jest.setTimeout(60_000);

beforeAll(async () => {
  receiver = await startReceiver();
  h = await startHarness({
    env: { DELIVERY_CLOCK_SPEED: '20000', DELIVERY_POLL_MS: '10' },
    logLevel: 'warn',
  });
});
afterAll(async () => {
  await receiver?.close();
  await h?.stop();
  await disconnectProducer();
});

interface Delivery {
  id: string;
  event_type: string;
  status: string;
  next_attempt_at: string | null;
  attempts: {
    attempted_at: string;
    status_code: number | null;
    latency_ms: number | null;
    error: string | null;
  }[];
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A subscription to `path` whose first delivery is held at the receiver until the test answers it,
 * so that the subscription can be disabled while that attempt is in flight.
 */
async function subscribeHoldingFirst(path: string, ordering: 'none' | 'per_resource' = 'none') {
  const api = h.api(h.P);
  const sub = (
    await api.post('/v1/webhooks', {
      url: receiver.url(path),
      events: ['user.created', 'user.deactivated'],
      ordering,
    })
  ).body as { id: string };
  let answerFirst: (a: Answer) => void = () => {};
  const first = new Promise<Answer>((resolve) => {
    answerFirst = resolve;
  });
  const later: { current: Answer } = { current: { status: 500 } };
  receiver.on(path, (_req, count) => (count === 1 ? first : later.current));
  const deliveries = async () => (await api.get(`/v1/webhooks/${sub.id}/deliveries`)).body.data as Delivery[];
  const delivery = async (id: string) =>
    (await api.get(`/v1/webhooks/${sub.id}/deliveries/${id}`)).body as Delivery;
  const setStatus = async (status: 'enabled' | 'disabled') => {
    const res = await api.patch(`/v1/webhooks/${sub.id}`, { status });
    expect(res.status).toBe(200);
    expect(res.body.status).toBe(status);
  };
  return { api, sub, answerFirst, later, deliveries, delivery, setStatus };
}

it('no request reaches a disabled subscription: a delivery waiting for its retry stays pending with no attempt, and goes out soon after it is enabled', async () => {
  const s = await subscribeHoldingFirst('/paused');
  await h.publishUserEvent(h.P);
  await waitUntil(async () => receiver.received('/paused').length === 1, 10_000, 'the first attempt');
  await s.setStatus('disabled');
  s.answerFirst({ status: 500 });
  await waitUntil(async () => (await s.deliveries())[0]?.attempts.length === 1, 10_000, 'the 500 recorded');
  const [waiting] = await s.deliveries();

  // 1 s of real time is about 5.5 h of this clock: enabled, it would have been retried ~9 times.
  await sleep(1000);
  expect(receiver.received('/paused')).toHaveLength(1);
  expect(await s.delivery(waiting!.id)).toMatchObject({
    status: 'pending',
    attempts: [{ status_code: 500 }],
  });

  s.later.current = { status: 200 };
  await s.setStatus('enabled');
  await waitUntil(
    async () => (await s.delivery(waiting!.id)).status === 'succeeded',
    10_000,
    'the resumed delivery',
  );
  expect(receiver.received('/paused')).toHaveLength(2);
  expect(receiver.received('/paused')[1]!.headers['service-delivery']).toBe(waiting!.id);
});

it('enabling again brings a retry scheduled hours ahead forward to now', async () => {
  const s = await subscribeHoldingFirst('/paused-far');
  await h.publishUserEvent(h.P);
  await waitUntil(async () => receiver.received('/paused-far').length === 1, 10_000, 'the first attempt');
  await s.setStatus('disabled');
  // The receiver asks for a day: the next attempt is at the 24 h horizon, 4.3 s of real time ahead.
  s.answerFirst({ status: 503, headers: { 'Retry-After': '86400' } });
  await waitUntil(async () => (await s.deliveries())[0]?.attempts.length === 1, 10_000, 'the 503 recorded');
  s.later.current = { status: 200 };
  const enabledAt = Date.now();
  await s.setStatus('enabled');
  await waitUntil(async () => receiver.received('/paused-far').length === 2, 10_000, 'the resumed attempt');
  expect(receiver.received('/paused-far')[1]!.at - enabledAt).toBeLessThan(2000);
  await waitUntil(async () => (await s.deliveries())[0]?.status === 'succeeded', 10_000, 'its success');
});

it('a held delivery whose 24 h end while the subscription is disabled turns failed, attempted or not; replays wait for it to be enabled', async () => {
  const since = new Date().toISOString();
  const s = await subscribeHoldingFirst('/paused-long', 'per_resource');
  // Two events of one user: the second waits for the first (per resource), so it is never attempted.
  await h.publishUserEvent(h.P, 'user.created', 'held-user');
  await h.publishUserEvent(h.P, 'user.deactivated', 'held-user');
  await waitUntil(async () => receiver.received('/paused-long').length === 1, 10_000, 'the first attempt');
  await waitUntil(async () => (await s.deliveries()).length === 2, 10_000, 'both deliveries');
  await s.setStatus('disabled');
  s.answerFirst({ status: 500 });

  await waitUntil(
    async () => (await s.deliveries()).every((d) => d.status === 'failed'),
    30_000,
    'both to fail at their horizon',
  );
  const both = await s.deliveries();
  const first = both.find((d) => d.event_type === 'user.created');
  const second = both.find((d) => d.event_type === 'user.deactivated');
  expect(receiver.received('/paused-long')).toHaveLength(1);
  const notSent = { status_code: null, latency_ms: null, error: HELD_PAST_HORIZON_ERROR };
  expect(first).toMatchObject({ next_attempt_at: null, attempts: [{ status_code: 500 }, notSent] });
  expect(second).toMatchObject({ next_attempt_at: null, attempts: [notSent] });
  expect(h.logged).toContainEqual(
    expect.objectContaining({
      level: 'warn',
      msg: 'webhook delivery failed for good: its retries are over',
      delivery_id: second!.id,
      error: HELD_PAST_HORIZON_ERROR,
    }),
  );

  // No event is sent while disabled: a replay is refused, saying why.
  const refusals = [
    await s.api.post(`/v1/webhooks/${s.sub.id}/deliveries/${first!.id}/replay`),
    await s.api.post(`/v1/webhooks/${s.sub.id}/replay`, { since }),
  ];
  for (const res of refusals) {
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({
      type: 'invalid_request',
      code: 'webhook_disabled',
      message: expect.stringMatching(/disabled/),
    });
  }
  const dryRun = await s.api.post(`/v1/webhooks/${s.sub.id}/replay`, { since, dry_run: true });
  expect(dryRun.body).toEqual({ object: 'webhook_replay', count: 2, dry_run: true });
  expect((await s.api.get(`/v1/webhooks/${s.sub.id}/deliveries`)).body.data).toHaveLength(2);

  // Enabled again: failed deliveries stay failed until replayed; then both go, in order.
  s.later.current = { status: 200 };
  await s.setStatus('enabled');
  await sleep(300);
  expect(receiver.received('/paused-long')).toHaveLength(1);
  const replay = await s.api.post(`/v1/webhooks/${s.sub.id}/replay`, { since });
  expect(replay.body).toEqual({ object: 'webhook_replay', count: 2, dry_run: false });
  await waitUntil(
    async () => (await s.deliveries()).every((d) => d.status === 'succeeded'),
    10_000,
    'both replays',
  );
  expect(receiver.received('/paused-long').map((r) => r.headers['service-event'])).toEqual([
    'user.created',
    'user.created',
    'user.deactivated',
  ]);
});

it('a test event still reaches a disabled subscription (an endpoint is checked before it is enabled); its events stay held', async () => {
  const api = h.api(h.P);
  const sub = (
    await api.post('/v1/webhooks', { url: receiver.url('/disabled-test'), events: ['user.created'] })
  ).body as { id: string };
  expect((await api.patch(`/v1/webhooks/${sub.id}`, { status: 'disabled' })).status).toBe(200);
  await h.publishUserEvent(h.P, 'user.created', 'held-while-testing');
  const test = await api.post(`/v1/webhooks/${sub.id}/test`);
  expect(test.status).toBe(202);
  await waitUntil(async () => receiver.received('/disabled-test').length === 1, 10_000, 'the test event');
  expect(receiver.received('/disabled-test')[0]!.headers['service-event']).toBe('webhook.test');
  await sleep(300);
  expect(receiver.received('/disabled-test').map((r) => r.headers['service-event'])).toEqual([
    'webhook.test',
  ]);
});
