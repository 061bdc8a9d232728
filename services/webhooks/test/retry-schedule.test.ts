// The whole 24 h retry schedule on a clock 20,000 times faster than real time (24 h = 4.3 s):
// a receiver that always fails gets attempts with growing, jittered gaps until the horizon, then the
// delivery is `failed`; replay of one and of a time range (with a dry run) sends it again with the
// same Service-Delivery. The rotated-out secret stops signing once its 24 h are over; a second
// rotation within those 24 h does not end the first one's overlap.
import { createHmac } from 'node:crypto';
import {
  type InMemoryTracing,
  type TestMetrics,
  startInMemoryTracing,
  startTestMetrics,
} from '@ordering/telemetry';
import { waitUntil } from '@ordering/testing';
import { MAX_SIGNING_SECRETS } from '../src/domain/subscriptions-use-case';
import {
  FIRST_RETRY_MS,
  MAX_RETRY_INTERVAL_MS,
  RETRY_HORIZON_MS,
  backoffMs,
  nextAttemptAt,
} from '../src/domain/retry-schedule';
import { disconnectProducer, type Harness, startHarness } from './support/harness';
import { type Receiver, startReceiver } from './support/receiver';
import { verifyWithStripe } from './support/stripe-verifier';

let h: Harness;
let receiver: Receiver;
let tracing: InMemoryTracing;
let metrics: TestMetrics;

beforeAll(async () => {
  tracing = startInMemoryTracing();
  metrics = startTestMetrics();
  receiver = await startReceiver();
  h = await startHarness({
    env: { DELIVERY_CLOCK_SPEED: '20000', DELIVERY_POLL_MS: '10' },
    logLevel: 'info',
  });
});
afterAll(async () => {
  await receiver?.close();
  await h?.stop();
  await disconnectProducer();
  await tracing.shutdown();
  await metrics.shutdown();
});

/** The attempts counted so far with this `attempt` label (first, retry, replay), every outcome. */
async function attemptsLabelled(label: string): Promise<number> {
  const lines = (await metrics.text())
    .split('\n')
    .filter(
      (l) => l.startsWith('ordering_webhook_delivery_attempts_total{') && l.includes(`attempt="${label}"`),
    );
  return lines.reduce((sum, l) => sum + Number(l.split(' ').pop()), 0);
}

interface Delivery {
  id: string;
  status: string;
  next_attempt_at: string | null;
  attempts: { attempted_at: string; status_code: number | null }[];
}

describe('the schedule', () => {
  it('backs off from about 30 s, doubling with jitter, to at most 3 h', () => {
    expect(backoffMs(1, () => 0)).toBe(FIRST_RETRY_MS * 0.75);
    expect(backoffMs(1, () => 1)).toBe(FIRST_RETRY_MS * 1.25);
    expect(backoffMs(3, () => 0.5)).toBe(FIRST_RETRY_MS * 4);
    expect(backoffMs(20, () => 0.5)).toBe(MAX_RETRY_INTERVAL_MS);
    const first = new Date('2026-11-24T00:00:00Z');
    // The last retry is at the horizon itself; after it, none.
    const late = new Date(first.getTime() + RETRY_HORIZON_MS - 1000);
    expect(nextAttemptAt({ now: late, firstAttemptAt: first, attemptCount: 12 })!.getTime()).toBe(
      first.getTime() + RETRY_HORIZON_MS,
    );
    expect(
      nextAttemptAt({
        now: new Date(first.getTime() + RETRY_HORIZON_MS),
        firstAttemptAt: first,
        attemptCount: 13,
      }),
    ).toBeNull();
  });

  it("honours a receiver's Retry-After only when it asks to wait longer than the backoff", () => {
    const first = new Date('2026-11-24T00:00:00Z');
    const after = (attemptCount: number, retryAfterMs?: number) =>
      nextAttemptAt({
        now: first,
        firstAttemptAt: first,
        attemptCount,
        random: () => 0.5,
        ...(retryAfterMs === undefined ? {} : { retryAfterMs }),
      })!.getTime() - first.getTime();
    // `Retry-After: 1` (or 0) does not bring the attempt forward: the backoff stands.
    expect(after(1, 1000)).toBe(FIRST_RETRY_MS);
    expect(after(1, 0)).toBe(FIRST_RETRY_MS);
    expect(after(4, 1000)).toBe(FIRST_RETRY_MS * 8);
    // A longer one is honoured.
    expect(after(1, 900_000)).toBe(900_000);
  });

  it('a receiver that always fails: attempts until 24 h after the first, then failed; then replays', async () => {
    const res = await h
      .api(h.P)
      .post('/v1/webhooks', { url: receiver.url('/always-500'), events: ['user.created'] });
    const sub = res.body as { id: string };
    receiver.on('/always-500', () => ({ status: 500, body: 'nope' }));
    await h.publishUserEvent(h.P);
    const deliveries = async () =>
      (await h.api(h.P).get(`/v1/webhooks/${sub.id}/deliveries`)).body.data as Delivery[];
    await waitUntil(
      async () => (await deliveries())[0]?.status === 'failed',
      30_000,
      'the delivery to fail for good',
    );
    const [failed] = await deliveries();
    const times = failed!.attempts.map((a) => Date.parse(a.attempted_at));
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    // About 14 attempts in 24 h: 30 s, 1 m, 2 m, ... 3 h, 3 h, ...
    expect(failed!.attempts.length).toBeGreaterThanOrEqual(10);
    expect(failed!.attempts.length).toBeLessThanOrEqual(20);
    expect(failed!.attempts.every((a) => a.status_code === 500)).toBe(true);
    expect(failed!.next_attempt_at).toBeNull();
    const span = times[times.length - 1]! - times[0]!;
    expect(span).toBeGreaterThanOrEqual(RETRY_HORIZON_MS);
    // Each real millisecond of polling, sending and recording (or a pause of a busy machine) is 20 s
    // on this clock: the gaps' own bounds are checked above on the schedule itself.
    expect(span).toBeLessThan(RETRY_HORIZON_MS + 60 * 60_000);
    expect(gaps[0]).toBeGreaterThanOrEqual(FIRST_RETRY_MS * 0.75);
    // The gaps grow to the 3 h cap (less jitter), far above any real-time overhead on this clock.
    expect(Math.max(...gaps)).toBeGreaterThanOrEqual(MAX_RETRY_INTERVAL_MS * 0.75);
    expect(receiver.received('/always-500')).toHaveLength(failed!.attempts.length);
    // On-call reads each failed attempt and the giving up in the log, with the event's trace id.
    const lines = h.logged.filter((l) => l.delivery_id === failed!.id);
    const retried = lines.filter((l) => l.msg === 'webhook attempt failed; it will be retried');
    expect(retried).toHaveLength(failed!.attempts.length - 1);
    expect(retried[0]).toMatchObject({
      level: 'info',
      subscription_id: sub.id,
      event_type: 'user.created',
      attempt: 1,
      status_code: 500,
      next_attempt_at: expect.any(String),
      trace_id: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    // Each line carries the trace_id and span_id of its own attempt's span, as a request's lines do.
    const attemptSpans = tracing
      .spans()
      .filter((span) => span.attributes['ordering.delivery_id'] === failed!.id)
      .map((span) => ({ attempt: span.attributes['ordering.webhook.attempt'], ...span.spanContext() }));
    expect(attemptSpans).toHaveLength(failed!.attempts.length);
    for (const line of retried)
      expect(attemptSpans).toContainEqual(
        expect.objectContaining({ attempt: line.attempt, traceId: line.trace_id, spanId: line.span_id }),
      );
    expect(new Set(retried.map((l) => l.span_id)).size).toBe(retried.length);
    expect(lines.filter((l) => l.level === 'warn')).toEqual([
      expect.objectContaining({
        msg: 'webhook delivery failed for good: its retries are over',
        attempt: failed!.attempts.length,
        next_attempt_at: null,
        trace_id: retried[0]!.trace_id,
        span_id: attemptSpans.find((a) => a.attempt === failed!.attempts.length)!.spanId,
      }),
    ]);

    // Replay one: pending again, same Service-Delivery, now to a receiver that answers 200.
    receiver.on('/always-500', () => ({ status: 200 }));
    const replay = await h.api(h.P).post(`/v1/webhooks/${sub.id}/deliveries/${failed!.id}/replay`);
    expect(replay.status).toBe(202);
    expect(replay.body).toMatchObject({ id: failed!.id, object: 'webhook_delivery', status: 'pending' });
    await waitUntil(
      async () => (await deliveries())[0]?.status === 'succeeded',
      10_000,
      'the replay to succeed',
    );
    const last = receiver.received('/always-500').at(-1)!;
    expect(last.headers['service-delivery']).toBe(failed!.id);
    expect((await deliveries())[0]!.attempts.at(-1)!.status_code).toBe(200);
    expect((await h.api(h.P).post(`/v1/webhooks/${sub.id}/deliveries/whdel_nope/replay`)).status).toBe(404);
  });

  it('a short Retry-After never retries sooner than the backoff: 429 + Retry-After: 1 is not an attempt a second', async () => {
    const api = h.api(h.P);
    const sub = (
      await api.post('/v1/webhooks', { url: receiver.url('/always-429'), events: ['user.created'] })
    ).body as { id: string };
    receiver.on('/always-429', () => ({ status: 429, headers: { 'Retry-After': '1' }, body: 'busy' }));
    await h.publishUserEvent(h.P);
    const deliveries = async () =>
      (await api.get(`/v1/webhooks/${sub.id}/deliveries`)).body.data as Delivery[];
    await waitUntil(
      async () => (await deliveries())[0]?.status === 'failed',
      30_000,
      'the delivery to fail for good',
    );
    const [failed] = await deliveries();
    // The same schedule as any failure (about 14 attempts in 24 h, fewer on a machine so busy that a
    // pause skips some), not one attempt per second.
    expect(failed!.attempts.length).toBeLessThanOrEqual(20);
    const times = failed!.attempts.map((a) => Date.parse(a.attempted_at));
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(FIRST_RETRY_MS * 0.75);
    await api.delete(`/v1/webhooks/${sub.id}`);
  });

  it('a replay that fails again is retried from about 30 s, as a new delivery is, not after the 3 h cap', async () => {
    const api = h.api(h.P);
    const sub = (
      await api.post('/v1/webhooks', { url: receiver.url('/replay-backoff'), events: ['user.created'] })
    ).body as { id: string };
    receiver.on('/replay-backoff', () => ({ status: 500 }));
    await h.publishUserEvent(h.P);
    const list = async () => (await api.get(`/v1/webhooks/${sub.id}/deliveries`)).body.data as Delivery[];
    await waitUntil(
      async () => (await list())[0]?.status === 'failed',
      30_000,
      'the delivery to fail for good',
    );
    const failed = (await list())[0]!;
    const before = failed.attempts.length;

    // After the replay: its first attempt fails, its second is held while the delivery is read.
    let release: () => void = () => {};
    const held = new Promise<{ status: number }>((resolve) => {
      release = () => resolve({ status: 200 });
    });
    receiver.on('/replay-backoff', (_req, count) => (count === before + 2 ? held : { status: 500 }));
    expect((await api.post(`/v1/webhooks/${sub.id}/deliveries/${failed.id}/replay`)).status).toBe(202);
    await waitUntil(
      async () => receiver.received('/replay-backoff').length === before + 2,
      10_000,
      'the second attempt of the replay',
    );
    const during = (await api.get(`/v1/webhooks/${sub.id}/deliveries/${failed.id}`)).body as Delivery;
    release();
    expect(during.attempts).toHaveLength(before + 1);
    const firstOfReplay = Date.parse(during.attempts.at(-1)!.attempted_at);
    // Both times are on the service's clock: the gap is the schedule's own, jitter included.
    const gap = Date.parse(during.next_attempt_at!) - firstOfReplay;
    expect(gap).toBeGreaterThanOrEqual(FIRST_RETRY_MS * 0.75);
    expect(gap).toBeLessThanOrEqual(FIRST_RETRY_MS * 1.25);
    await waitUntil(async () => (await list())[0]?.status === 'succeeded', 10_000, 'the replay to succeed');
  });

  it('replays a range of failed deliveries: the dry run counts, the real one sends them again', async () => {
    const res = await h
      .api(`${h.P}-EU`)
      .post('/v1/webhooks', { url: receiver.url('/range'), events: ['user.created'] });
    const sub = res.body as { id: string };
    const api = h.api(`${h.P}-EU`);
    receiver.on('/range', () => ({ status: 503 }));
    const since = new Date().toISOString();
    for (let i = 0; i < 3; i++) await h.publishUserEvent(`${h.P}-EU`);
    const failedCount = async () =>
      ((await api.get(`/v1/webhooks/${sub.id}/deliveries?status=failed`)).body.data as Delivery[]).length;
    await waitUntil(async () => (await failedCount()) === 3, 30_000, 'three failed deliveries');
    const before = receiver.received('/range').length;

    const dry = await api.post(`/v1/webhooks/${sub.id}/replay`, { since, dry_run: true });
    expect(dry.status).toBe(200);
    expect(dry.body).toEqual({ object: 'webhook_replay', count: 3, dry_run: true });
    // The forms the list filters take: a date alone (midnight UTC), a date-time with an offset.
    const today = since.slice(0, 10);
    const byDate = await api.post(`/v1/webhooks/${sub.id}/replay`, { since: today, dry_run: true });
    expect(byDate.body).toEqual({ object: 'webhook_replay', count: 3, dry_run: true });
    const byOffset = await api.post(`/v1/webhooks/${sub.id}/replay`, {
      since: `${today}T00:00:00+00:00`,
      dry_run: true,
    });
    expect(byOffset.body).toEqual({ object: 'webhook_replay', count: 3, dry_run: true });
    const empty = await api.post(`/v1/webhooks/${sub.id}/replay`, {
      since: '2020-01-01T00:00:00Z',
      until: since,
    });
    expect(empty.body).toEqual({ object: 'webhook_replay', count: 0, dry_run: false });
    await new Promise((r) => setTimeout(r, 200));
    expect(receiver.received('/range')).toHaveLength(before);
    expect(await failedCount()).toBe(3);

    receiver.on('/range', () => ({ status: 200 }));
    const [firstBefore, replayBefore] = [await attemptsLabelled('first'), await attemptsLabelled('replay')];
    const real = await api.post(`/v1/webhooks/${sub.id}/replay`, { since });
    expect(real.body).toEqual({ object: 'webhook_replay', count: 3, dry_run: false });
    await waitUntil(
      async () =>
        ((await api.get(`/v1/webhooks/${sub.id}/deliveries?status=succeeded`)).body.data as Delivery[])
          .length === 3,
      10_000,
      'the three replays',
    );
    // Counted as replays, not first attempts: the first-attempt failure alert does not read them
    // (an integrator replaying failures to a receiver still down must not page on-call).
    expect(await attemptsLabelled('replay')).toBe(replayBefore + 3);
    expect(await attemptsLabelled('first')).toBe(firstBefore);
    const bad = await api.post(`/v1/webhooks/${sub.id}/replay`, { since: 'yesterday' });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatchObject({ code: 'invalid_value', param: 'since' });
    const missing = await api.post(`/v1/webhooks/${sub.id}/replay`, { dry_run: true });
    expect(missing.body.error).toMatchObject({ code: 'missing_required_field', param: 'since' });
    const backwards = await api.post(`/v1/webhooks/${sub.id}/replay`, {
      since,
      until: '2020-01-01T00:00:00Z',
    });
    expect(backwards.body.error).toMatchObject({ code: 'invalid_value', param: 'until' });
  });
});

describe('rotation overlap', () => {
  it('the old secret signs for 24 h after rotate_secret, then only the new one', async () => {
    const api = h.api(`${h.P}-EU-DE`);
    const created = (await api.post('/v1/webhooks', { url: receiver.url('/rot'), events: ['user.created'] }))
      .body;
    const rotated = (await api.post(`/v1/webhooks/${created.id}/rotate_secret`)).body;
    await api.post(`/v1/webhooks/${created.id}/test`);
    await waitUntil(async () => receiver.received('/rot').length === 1, 10_000, 'the first test event');
    const during = receiver.received('/rot')[0]!;
    expect(String(during.headers['service-signature']).match(/v1=/g)).toHaveLength(2);
    expect(
      verifyWithStripe(during.body, during.headers['service-signature'], created.signing_secret),
    ).toBeTruthy();

    // 24 h of this clock later (4.3 s), the old secret no longer signs.
    const rotatedAt = h.service.parts.clock.now().getTime();
    await waitUntil(
      async () => h.service.parts.clock.now().getTime() > rotatedAt + RETRY_HORIZON_MS + 60_000,
      10_000,
      '24 h',
    );
    await api.post(`/v1/webhooks/${created.id}/test`);
    await waitUntil(async () => receiver.received('/rot').length === 2, 10_000, 'the second test event');
    const after = receiver.received('/rot')[1]!;
    expect(String(after.headers['service-signature']).match(/v1=/g)).toHaveLength(1);
    expect(
      verifyWithStripe(after.body, after.headers['service-signature'], rotated.signing_secret),
    ).toBeTruthy();
    expect(() =>
      verifyWithStripe(after.body, after.headers['service-signature'], created.signing_secret),
    ).toThrow();
  });

  /** The `v1` entries of a delivery's `Service-Signature`, in the order sent. */
  const v1s = (r: { headers: Record<string, unknown> }) =>
    String(r.headers['service-signature'])
      .split(',')
      .filter((p) => p.startsWith('v1='))
      .map((p) => p.slice(3));
  const v1Of = (r: { headers: Record<string, unknown>; body: string }, secret: string) =>
    createHmac('sha256', secret)
      .update(`${/t=(\d+)/.exec(String(r.headers['service-signature']))![1]}.${r.body}`)
      .digest('hex');
  const clockPast = (ms: number, what: string) =>
    waitUntil(async () => h.service.parts.clock.now().getTime() > ms, 20_000, what);

  it("a second rotation within 24 h keeps the first one's secret signing until its own 24 h end, newest first", async () => {
    const api = h.api(`${h.P}-EU-DE`);
    const first = (await api.post('/v1/webhooks', { url: receiver.url('/rot2'), events: ['user.created'] }))
      .body as { id: string; signing_secret: string };
    const second = (await api.post(`/v1/webhooks/${first.id}/rotate_secret`)).body as {
      signing_secret: string;
    };
    const firstRotatedAt = h.service.parts.clock.now().getTime();
    // 12 h later (of this clock) the receiver's secret is rotated again, e.g. a second leak.
    await clockPast(firstRotatedAt + 12 * 3600_000, '12 h');
    const third = (await api.post(`/v1/webhooks/${first.id}/rotate_secret`)).body as {
      signing_secret: string;
    };
    const secondRotatedAt = h.service.parts.clock.now().getTime();
    const testEvent = async (n: number) => {
      expect((await api.post(`/v1/webhooks/${first.id}/test`)).status).toBe(202);
      await waitUntil(async () => receiver.received('/rot2').length === n, 10_000, `test event ${n}`);
      return receiver.received('/rot2')[n - 1]!;
    };

    // Three secrets sign, newest first; a receiver still on the very first one verifies.
    const during = await testEvent(1);
    expect(v1s(during)).toEqual([
      v1Of(during, third.signing_secret),
      v1Of(during, second.signing_secret),
      v1Of(during, first.signing_secret),
    ]);
    for (const secret of [first, second, third].map((s) => s.signing_secret))
      expect(verifyWithStripe(during.body, during.headers['service-signature'], secret)).toBeTruthy();

    // Past the first rotation's 24 h (but not the second's): the first secret stops, the others sign.
    await clockPast(firstRotatedAt + RETRY_HORIZON_MS + 60_000, "the first rotation's 24 h");
    expect(h.service.parts.clock.now().getTime()).toBeLessThan(secondRotatedAt + RETRY_HORIZON_MS);
    const later = await testEvent(2);
    expect(v1s(later)).toEqual([v1Of(later, third.signing_secret), v1Of(later, second.signing_secret)]);
    expect(
      verifyWithStripe(later.body, later.headers['service-signature'], second.signing_secret),
    ).toBeTruthy();
    expect(() =>
      verifyWithStripe(later.body, later.headers['service-signature'], first.signing_secret),
    ).toThrow();

    // Past the second rotation's 24 h: only the current secret.
    await clockPast(secondRotatedAt + RETRY_HORIZON_MS + 60_000, "the second rotation's 24 h");
    const last = await testEvent(3);
    expect(v1s(last)).toEqual([v1Of(last, third.signing_secret)]);
    expect(() =>
      verifyWithStripe(last.body, last.headers['service-signature'], second.signing_secret),
    ).toThrow();
  });

  it(`at most ${MAX_SIGNING_SECRETS} secrets sign at once: one more rotation within 24 h ends the oldest overlap`, async () => {
    const api = h.api(`${h.P}-EU-DE`);
    const created = (
      await api.post('/v1/webhooks', { url: receiver.url('/rot-cap'), events: ['user.created'] })
    ).body as { id: string; signing_secret: string };
    const secrets = [created.signing_secret];
    for (let i = 0; i < MAX_SIGNING_SECRETS; i++)
      secrets.push(
        ((await api.post(`/v1/webhooks/${created.id}/rotate_secret`)).body as { signing_secret: string })
          .signing_secret,
      );
    await api.post(`/v1/webhooks/${created.id}/test`);
    await waitUntil(async () => receiver.received('/rot-cap').length === 1, 10_000, 'the test event');
    const sent = receiver.received('/rot-cap')[0]!;
    // Newest first, the ten newest; the creation's secret (the oldest) was dropped.
    expect(v1s(sent)).toEqual(
      secrets
        .slice(1)
        .reverse()
        .map((s) => v1Of(sent, s)),
    );
    expect(verifyWithStripe(sent.body, sent.headers['service-signature'], secrets[1]!)).toBeTruthy();
    expect(() => verifyWithStripe(sent.body, sent.headers['service-signature'], secrets[0]!)).toThrow();
  });
});
