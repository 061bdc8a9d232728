// Domain events fanned out to the subscriptions of the event's account and its ancestors, signed
// (verified with Stripe's SDK), retried (down then up, 429 Retry-After), never redirected, one
// endpoint never slowing another, and ordered per resource when a subscription asks for it. The
// retry schedule runs 1000 times faster than real time here.
import { encodeCursor } from '@ordering/http';
import { waitUntil } from '@ordering/testing';
import { disconnectProducer, type Harness, startHarness } from './support/harness';
import { type Receiver, startReceiver } from './support/receiver';
import { verifyWithStripe } from './support/stripe-verifier';

let h: Harness;
let receiver: Receiver;

// Room for a shared, busy 2-core machine.
jest.setTimeout(90_000);

beforeAll(async () => {
  receiver = await startReceiver();
  h = await startHarness({ env: { DELIVERY_CLOCK_SPEED: '1000' } });
});
afterAll(async () => {
  await receiver?.close();
  await h?.stop();
  await disconnectProducer();
});

async function subscribe(custId: string, path: string, events: string[], extra: object = {}) {
  const res = await h.api(custId).post('/v1/webhooks', { url: receiver.url(path), events, ...extra });
  expect(res.status).toBe(201);
  return res.body as { id: string; signing_secret: string };
}

async function deliveriesOf(custId: string, subscriptionId: string, query = '') {
  const res = await h.api(custId).get(`/v1/webhooks/${subscriptionId}/deliveries${query}`);
  expect(res.status).toBe(200);
  return res.body.data as {
    id: string;
    status: string;
    event_id: string;
    event_type: string;
    attempts: {
      attempted_at: string;
      status_code: number | null;
      error: string | null;
      response_excerpt: string | null;
    }[];
  }[];
}

describe('fan-out', () => {
  it('an event reaches the enabled subscriptions of its account and of its ancestors that asked for its type, once each', async () => {
    const P = h.P;
    const top = await subscribe(P, '/fan/top', ['user.created']);
    const child = await subscribe(`${P}-EU`, '/fan/child', ['user.created', 'user.deactivated']);
    const own = await subscribe(`${P}-EU-DE`, '/fan/own', ['user.created']);
    await subscribe(`${P}-EU-DE`, '/fan/other-type', ['user.deactivated']);
    await subscribe(`${P}-OTHER`, '/fan/unrelated', ['user.created']);
    const disabled = await subscribe(P, '/fan/disabled', ['user.created']);
    await h.api(P).patch(`/v1/webhooks/${disabled.id}`, { status: 'disabled' });

    const eventId = await h.publishUserEvent(`${P}-EU-DE`);
    await waitUntil(
      async () => ['/fan/top', '/fan/child', '/fan/own'].every((p) => receiver.received(p).length === 1),
      15_000,
      'the three deliveries',
    );
    for (const [path, sub] of [
      ['/fan/top', top],
      ['/fan/child', child],
      ['/fan/own', own],
    ] as const) {
      const got = receiver.received(path)[0]!;
      const event = verifyWithStripe(got.body, got.headers['service-signature'], sub.signing_secret);
      expect(event).toMatchObject({
        id: eventId,
        object: 'event',
        type: 'user.created',
        cust_id: `${P}-EU-DE`,
        api_version: 'v1',
      });
      expect(got.headers['service-event']).toBe('user.created');
      // The envelope's fields in the spec's order (the deliveries table is jsonb, with an order of its own).
      expect(Object.keys(JSON.parse(got.body) as object)).toEqual([
        'id',
        'object',
        'type',
        'created_at',
        'cust_id',
        'api_version',
        'data',
      ]);
      expect(got.body.startsWith(`{"id":"${eventId}","object":"event","type":"user.created"`)).toBe(true);
    }
    // A forged body does not verify.
    const got = receiver.received('/fan/own')[0]!;
    expect(() =>
      verifyWithStripe(got.body.replace('user', 'usr'), got.headers['service-signature'], own.signing_secret),
    ).toThrow();
    await new Promise((r) => setTimeout(r, 300));
    for (const p of ['/fan/other-type', '/fan/unrelated', '/fan/disabled'])
      expect(receiver.received(p)).toHaveLength(0);
    // One delivery per (event, subscription), recorded with its attempt.
    const rows = await h.db.knex('webhook_deliveries').where({ event_id: eventId });
    expect(rows).toHaveLength(3);
  });
});

describe('retries', () => {
  it('a receiver that is down, then up: retried with backoff until it answers 2xx; every attempt kept', async () => {
    const sub = await subscribe(h.P, '/down-up', ['user.deactivated']);
    receiver.on('/down-up', (_req, n) => (n <= 3 ? { status: 500, body: `down ${n}` } : { status: 204 }));
    const eventId = await h.publishUserEvent(h.P, 'user.deactivated');
    await waitUntil(
      async () => (await deliveriesOf(h.P, sub.id))[0]?.status === 'succeeded',
      20_000,
      'success',
    );
    const [delivery] = await deliveriesOf(h.P, sub.id);
    expect(delivery!.event_id).toBe(eventId);
    expect(delivery!.attempts.map((a) => a.status_code)).toEqual([500, 500, 500, 204]);
    expect(delivery!.attempts[0]).toMatchObject({ error: 'HTTP 500', response_excerpt: 'down 1' });
    // Same Service-Delivery on every attempt.
    const ids = new Set(receiver.received('/down-up').map((r) => r.headers['service-delivery']));
    expect([...ids]).toEqual([delivery!.id]);
    const times = delivery!.attempts.map((a) => Date.parse(a.attempted_at));
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    // No retry before the first backoff (22.5..37.5 s); the schedule itself: retry-schedule.test.ts.
    expect(Math.min(...gaps)).toBeGreaterThanOrEqual(22_500);
  });

  it('a replay asked while an attempt is under way is not lost when that attempt ends', async () => {
    const sub = await subscribe(h.P, '/replay-in-flight', ['user.deactivated']);
    let answer: () => void = () => {};
    const held = new Promise<{ status: number }>((resolve) => {
      answer = () => resolve({ status: 204 });
    });
    receiver.on('/replay-in-flight', (_req, n) => (n === 1 ? held : { status: 204 }));
    await h.publishUserEvent(h.P, 'user.deactivated');
    await waitUntil(async () => receiver.received('/replay-in-flight').length === 1, 20_000, 'the attempt');
    const deliveryId = String(receiver.received('/replay-in-flight')[0]!.headers['service-delivery']);
    // The integrator replays while the receiver has not answered yet; then the receiver answers.
    const replay = await h.api(h.P).post(`/v1/webhooks/${sub.id}/deliveries/${deliveryId}/replay`, {});
    expect(replay.status).toBe(202);
    answer();
    await waitUntil(async () => receiver.received('/replay-in-flight').length === 2, 20_000, 'the replay');
    await waitUntil(
      async () => (await deliveriesOf(h.P, sub.id))[0]?.attempts.length === 2,
      20_000,
      'both attempts recorded',
    );
    const [delivery] = await deliveriesOf(h.P, sub.id);
    expect(delivery).toMatchObject({ id: deliveryId, status: 'succeeded' });
    expect(delivery!.attempts.map((a) => a.status_code)).toEqual([204, 204]);
  });

  it('429 with Retry-After: the next attempt waits what the receiver asked, not the backoff', async () => {
    const sub = await subscribe(h.P, '/busy', ['user.deactivated']);
    receiver.on('/busy', (_req, n) =>
      n === 1 ? { status: 429, headers: { 'Retry-After': '900' } } : { status: 200 },
    );
    await h.publishUserEvent(h.P, 'user.deactivated');
    await waitUntil(
      async () => (await deliveriesOf(h.P, sub.id))[0]?.status === 'succeeded',
      20_000,
      'success',
    );
    const [delivery] = await deliveriesOf(h.P, sub.id);
    expect(delivery!.attempts.map((a) => a.status_code)).toEqual([429, 200]);
    const gap =
      Date.parse(delivery!.attempts[1]!.attempted_at) - Date.parse(delivery!.attempts[0]!.attempted_at);
    // The first backoff would be 22.5..37.5 s; Retry-After asked for 900 s.
    expect(gap).toBeGreaterThanOrEqual(900_000);
    // Each real millisecond is a second on this clock: 900 s plus the time to poll and send.
    expect(gap).toBeLessThan(1_500_000);
  });

  it('a redirect is not followed: the 3xx is a failed attempt and the target never hears of it', async () => {
    const sub = await subscribe(h.P, '/redirect', ['user.deactivated']);
    receiver.on('/redirect', () => ({
      status: 307,
      headers: { Location: receiver.url('/redirect-target') },
    }));
    await h.publishUserEvent(h.P, 'user.deactivated');
    await waitUntil(
      async () => ((await deliveriesOf(h.P, sub.id))[0]?.attempts.length ?? 0) >= 2,
      20_000,
      'two attempts',
    );
    const [delivery] = await deliveriesOf(h.P, sub.id);
    expect(delivery!.status).toBe('pending');
    expect(delivery!.attempts[0]).toMatchObject({ status_code: 307, error: 'HTTP 307' });
    expect(receiver.received('/redirect-target')).toHaveLength(0);
    await h.api(h.P).delete(`/v1/webhooks/${sub.id}`);
  });
});

describe('isolation and order', () => {
  it('a receiver that hangs for 10 s does not slow another endpoint’s deliveries', async () => {
    const P = `${h.P}-EU`;
    const slow = await subscribe(P, '/hang', ['user.created']);
    const fast = await subscribe(P, '/fast', ['user.created']);
    receiver.on('/hang', () => 'hang');
    const started = Date.now();
    for (let i = 0; i < 30; i++) await h.publishUserEvent(P);
    await waitUntil(
      async () => receiver.received('/fast').length === 30,
      30_000,
      'the fast endpoint to get all 30',
    );
    const fastDone = Math.max(...receiver.received('/fast').map((r) => r.at));
    // All 30 reached the fast endpoint long before the slow one's first timeout (10 s).
    expect(fastDone - started).toBeLessThan(5000);
    expect(receiver.received('/hang').length).toBeGreaterThan(0);
    const slowRows = await deliveriesOf(P, slow.id, '?limit=100');
    expect(slowRows.every((d) => d.status === 'pending')).toBe(true);
    await waitUntil(
      async () =>
        (await deliveriesOf(P, fast.id, '?limit=100')).filter((d) => d.status === 'succeeded').length === 30,
      5000,
      'the fast deliveries to be recorded as succeeded',
    );
    await h.api(P).delete(`/v1/webhooks/${slow.id}`);
  });

  it('ordering per_resource: one resource’s events arrive in order, each after the previous one succeeded', async () => {
    const sub = await subscribe(h.P, '/ordered', ['user.created', 'user.deactivated'], {
      ordering: 'per_resource',
    });
    // The first attempt of each delivery fails, so without ordering the retries would interleave.
    const seen = new Map<string, number>();
    receiver.on('/ordered', (req) => {
      const id = String(req.headers['service-delivery']);
      const n = (seen.get(id) ?? 0) + 1;
      seen.set(id, n);
      return n === 1 ? { status: 503 } : { status: 200 };
    });
    const login = `ord-${Date.now()}`;
    const ids: string[] = [];
    for (let i = 0; i < 4; i++)
      ids.push(await h.publishUserEvent(h.P, i % 2 ? 'user.deactivated' : 'user.created', login));
    await waitUntil(
      async () => (await deliveriesOf(h.P, sub.id)).filter((d) => d.status === 'succeeded').length === 4,
      60_000,
      'four ordered deliveries',
    );
    const successes = receiver
      .received('/ordered')
      .filter((r) => seen.get(String(r.headers['service-delivery']))! >= 2)
      .map((r) => JSON.parse(r.body) as { id: string });
    // Each event's first attempt precedes the next event's first attempt: strictly in order.
    const firstSeen = receiver.received('/ordered').map((r) => (JSON.parse(r.body) as { id: string }).id);
    const order = [...new Set(firstSeen)];
    expect(order).toEqual(ids);
    expect(successes.length).toBeGreaterThanOrEqual(4);
  });
});

describe('deliveries API', () => {
  it('lists with filters (status, event type, time range) and cursor pages; one delivery with its attempts', async () => {
    const sub = await subscribe(`${h.P}-OTHER`, '/listed', ['user.created', 'user.deactivated']);
    const before = new Date().toISOString();
    await h.publishUserEvent(`${h.P}-OTHER`, 'user.created');
    await h.publishUserEvent(`${h.P}-OTHER`, 'user.deactivated');
    await h.publishUserEvent(`${h.P}-OTHER`, 'user.created');
    const O = `${h.P}-OTHER`;
    await waitUntil(
      async () => (await deliveriesOf(O, sub.id, '?status=succeeded')).length === 3,
      45_000,
      'three deliveries',
    );
    expect(await deliveriesOf(O, sub.id, '?event_type=user.deactivated')).toHaveLength(1);
    expect(await deliveriesOf(O, sub.id, `?created_after=${before}`)).toHaveLength(3);
    expect(await deliveriesOf(O, sub.id, `?created_before=${before}`)).toHaveLength(0);
    expect(await deliveriesOf(O, sub.id, '?status=failed')).toHaveLength(0);
    const page1 = await h.api(O).get(`/v1/webhooks/${sub.id}/deliveries?limit=2`);
    expect(page1.body).toMatchObject({
      object: 'list',
      has_more: true,
      url: `/v1/webhooks/${sub.id}/deliveries`,
    });
    const page2 = await h
      .api(O)
      .get(`/v1/webhooks/${sub.id}/deliveries?limit=2&starting_after=${page1.body.next_cursor}`);
    expect(page2.body).toMatchObject({ has_more: false, next_cursor: null });
    expect(new Set([...page1.body.data, ...page2.body.data].map((d: { id: string }) => d.id)).size).toBe(3);

    const one = await h.api(O).get(`/v1/webhooks/${sub.id}/deliveries/${page1.body.data[0].id}`);
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({
      object: 'webhook_delivery',
      status: 'succeeded',
      next_attempt_at: null,
    });
    expect(one.body.attempts).toHaveLength(1);

    const bad = await h.api(O).get(`/v1/webhooks/${sub.id}/deliveries?status=lost`);
    expect(bad.body.error).toMatchObject({ code: 'invalid_value', param: 'status' });
    // A misspelt event type is the caller's error, as a misspelt status is, not an empty page.
    for (const type of ['order.shiped', 'webhook.tested']) {
      const badType = await h.api(O).get(`/v1/webhooks/${sub.id}/deliveries?event_type=${type}`);
      expect({ type, status: badType.status, error: badType.body.error }).toEqual({
        type,
        status: 422,
        error: expect.objectContaining({ code: 'invalid_value', param: 'event_type' }),
      });
    }
    expect(await deliveriesOf(O, sub.id, '?event_type=webhook.test')).toHaveLength(0);
    const badTime = await h.api(O).get(`/v1/webhooks/${sub.id}/deliveries?created_after=yesterday`);
    expect(badTime.body.error).toMatchObject({ code: 'invalid_value', param: 'created_after' });
    // Forged cursors and impossible dates are the caller's error (422 naming them), never a 500.
    const someDelivery = 'whdel_01JD0Z8Q3N4M5P6R7S8T9V0W1X';
    for (const query of [
      `starting_after=${encodeCursor({ created_at: 'x', id: 'y' })}`,
      `starting_after=${encodeCursor({ created_at: '', id: someDelivery })}`,
      `starting_after=${encodeCursor({ created_at: '2026-99-99T00:00:00Z', id: someDelivery })}`,
      `starting_after=${encodeCursor({ created_at: '99999-01-01T00:00:00Z', id: someDelivery })}`,
      `starting_after=${encodeCursor({ created_at: 1700000000000, id: someDelivery })}`,
      'created_after=2026-02-30T00:00:00Z',
      'created_before=2026-11-31',
    ]) {
      const res = await h.api(O).get(`/v1/webhooks/${sub.id}/deliveries?${query}`);
      expect({ query, status: res.status, error: res.body.error }).toEqual({
        query,
        status: 422,
        error: expect.objectContaining({
          type: 'invalid_request',
          code: 'invalid_value',
          param: query.split('=')[0],
        }),
      });
    }
    expect((await h.api(O).get(`/v1/webhooks/${sub.id}/deliveries/whdel_nope`)).status).toBe(404);
  });
});
