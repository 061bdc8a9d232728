import { randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { Redis } from 'ioredis';
import request from 'supertest';
import type { Pool } from 'undici';
import { expectApiError } from './support/api-assertions';
import { type BurstResult, burst, gatewayClient } from './support/burst';
import { type Harness, REDIS_URL, startHarness } from './support/gateway-harness';
import { closedPort } from './support/recording-upstream';
import { TcpProxy } from '@ordering/testing';
import { waitFor } from './support/wait-for';

const CAPACITY = 240;
const RATE = 120; // per second

// Bursts far larger than what can refill while they run, so that a slow, loaded machine (a burst
// taking seconds instead of a tenth of one) still sees the bucket run dry: the assertions follow
// the bucket arithmetic over the measured times, never a fixed expectation of speed.
const BURST = 720;
const SECOND_BURST = 480;

/** Tokens refilled over `ms` milliseconds. */
const refill = (ms: number) => (RATE * ms) / 1000;

function expectLimitedResponse(result: BurstResult, bucket: 'token' | 'address' = 'token'): void {
  const limited = result.responses.find((r) => r.status === 429);
  expect(limited).toBeDefined();
  expect(limited?.headers['retry-after']).toBe('1');
  expect(limited?.headers['x-ratelimit-limit']).toBe('120');
  expect(limited?.headers['x-ratelimit-remaining']).toBe('0');
  expect(limited?.headers['x-ratelimit-reset']).toBe('2');
  const body = JSON.parse(limited?.body ?? '{}');
  expect(body.error).toMatchObject({
    type: 'rate_limit_error',
    code: 'rate_limit_exceeded',
    message:
      bucket === 'token'
        ? 'Too many requests for this token; slow down'
        : 'Too many requests from this address; slow down',
  });
  expect(body.error.request_id).toBe(limited?.headers['x-request-id']);
}

/** 240 quick requests pass (plus what refilled meanwhile); the rest are 429. */
function expectBurstAdmitsTheCapacity(result: BurstResult): void {
  expect(result.passed + result.limited).toBe(result.statuses.length);
  expect(result.passed).toBeGreaterThanOrEqual(CAPACITY);
  expect(result.passed).toBeLessThanOrEqual(
    CAPACITY + Math.ceil(refill(result.endedAt - result.startedAt)) + 1,
  );
  expect(result.limited).toBeGreaterThan(0);
}

// One gateway for the token buckets and the address buckets below (they never share a key).
let h: Harness;
let client: Pool;

beforeAll(async () => {
  h = await startHarness();
  client = gatewayClient(h.url);
});
afterAll(async () => {
  await client.close();
  await h.stop();
});

describe('rate limit per token (shared bucket in Redis)', () => {
  it('lets 240 quick requests through, then 429 with Retry-After; about 60 more pass 0.5 s later', async () => {
    const token = h.issuer.mint({ scope: 'orders:read' });
    const first = await burst(client, '/v1/orders', token, BURST);
    expectBurstAdmitsTheCapacity(first);
    expectLimitedResponse(first);
    for (const r of first.responses) {
      expect(r.headers['x-ratelimit-limit']).toBe('120');
      expect(Number(r.headers['x-ratelimit-remaining'])).toBeGreaterThanOrEqual(0);
      expect(Number(r.headers['x-ratelimit-reset'])).toBeGreaterThanOrEqual(1);
    }

    // Time passing is what refills the bucket: wait 0.5 s after the bucket ran dry.
    await delay(Math.max(0, 500 - (Date.now() - first.endedAt)));
    const second = await burst(client, '/v1/orders', token, SECOND_BURST);
    // The bucket was empty when the first burst ended: at least the 0.5 s of refill passes now...
    expect(second.passed).toBeGreaterThanOrEqual(Math.floor(refill(second.startedAt - first.endedAt)) - 1);
    expect(second.limited).toBeGreaterThan(0);
    // ...and over both bursts no more passed than the capacity plus what refilled in all that time.
    expect(first.passed + second.passed).toBeLessThanOrEqual(
      CAPACITY + Math.ceil(refill(second.endedAt - first.startedAt)) + 1,
    );
  });

  it('gives every token its own bucket', async () => {
    const greedy = h.issuer.mint({ scope: 'orders:read' });
    const result = await burst(client, '/v1/orders', greedy, BURST);
    expect(result.limited).toBeGreaterThan(0);
    await request(h.url).get('/v1/orders').set('Authorization', `Bearer ${h.issuer.mint()}`).expect(200);
  });

  it('puts the rate-limit headers on errors after authentication, e.g. 403', async () => {
    const res = await request(h.url).get('/v1/webhooks').set('Authorization', `Bearer ${h.issuer.mint()}`);
    expectApiError(res, 403, 'permission_error', 'insufficient_scope');
    expect(res.headers['x-ratelimit-limit']).toBe('120');
    expect(res.headers['x-ratelimit-remaining']).toBe('239');
    expect(res.headers['x-ratelimit-reset']).toBe('1');
  });

  it('keeps the bucket in Redis under the configured key prefix', async () => {
    const jti = randomUUID();
    await request(h.url)
      .get('/v1/orders')
      .set('Authorization', `Bearer ${h.issuer.mint({ jti })}`)
      .expect(200);
    const redis = new Redis(REDIS_URL);
    try {
      expect(await redis.hget(`${h.keyPrefix}ratelimit:${jti}`, 'tokens')).toMatch(/^239\./);
    } finally {
      await redis.quit();
    }
  });
});

describe('requests without a valid token: the bucket of their client address', () => {
  const expectHeaders = (res: request.Response) => {
    expect(res.headers['x-ratelimit-limit']).toBe('120');
    expect(Number(res.headers['x-ratelimit-remaining'])).toBeLessThanOrEqual(239);
    expect(res.headers['x-ratelimit-reset']).toMatch(/^[12]$/);
  };

  it("puts the address's rate-limit headers on a 401, an unknown path's 404 and the OpenAPI document", async () => {
    const unauthorized = await request(h.url).get('/v1/orders').set('Authorization', 'Bearer not-a-token');
    expectApiError(unauthorized, 401, 'authentication_error', 'invalid_token');
    expect(unauthorized.headers['x-ratelimit-remaining']).toBe('239');
    expectHeaders(unauthorized);
    const missing = await request(h.url).get('/v1/orders');
    expectApiError(missing, 401, 'authentication_error', 'invalid_token');
    expectHeaders(missing);
    const unknown = await request(h.url).get('/v1/no-such-thing');
    expectApiError(unknown, 404, 'invalid_request', 'resource_missing');
    expectHeaders(unknown);
    const document = await request(h.url).get('/v1/openapi.json').expect(200);
    expectHeaders(document);
    // Probes are not API answers.
    const live = await request(h.url).get('/healthz').expect(200);
    expect(live.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('refuses a flood of bad tokens from one address with 429; a valid token keeps its own bucket', async () => {
    const result = await burst(client, '/v1/orders', 'forged', BURST);
    const refused = result.statuses.filter((s) => s === 401).length;
    expect(refused + result.limited).toBe(BURST);
    expect(refused).toBeGreaterThanOrEqual(CAPACITY - 10); // the test above took a few
    expect(refused).toBeLessThanOrEqual(CAPACITY + Math.ceil(refill(result.endedAt - result.startedAt)) + 1);
    expectLimitedResponse(result, 'address');
    await request(h.url)
      .get('/v1/orders')
      .set('Authorization', `Bearer ${h.issuer.mint({ scope: 'orders:read' })}`)
      .expect(200);
  });
});

describe('behind a trusted proxy (TRUST_PROXY=true): the address the proxy wrote', () => {
  it('counts an IPv6 client by its /64: fresh addresses of one /64 share a bucket, another /64 has its own', async () => {
    const behind = await startHarness({ env: { TRUST_PROXY: 'true' } });
    try {
      const from = (address: string) =>
        request(behind.url).get('/v1/orders').set('X-Forwarded-For', `198.51.100.1, ${address}`);
      const startedAt = Date.now();
      const flood = await Promise.all(Array.from({ length: 40 }, (_, i) => from(`2001:db8:7:7::${i + 1}`)));
      expect(flood.every((r) => r.status === 401)).toBe(true);
      const sibling = await from('2001:db8:7:7:ffff:ffff:ffff:ffff');
      const remaining = Number(sibling.headers['x-ratelimit-remaining']);
      expect(remaining).toBeLessThanOrEqual(CAPACITY - 41 + Math.ceil(refill(Date.now() - startedAt)));
      expect(Number((await from('2001:db8:7:8::1')).headers['x-ratelimit-remaining'])).toBe(CAPACITY - 1);
    } finally {
      await behind.stop();
    }
  });
});

const unavailableWarnings = (h: Harness) =>
  h.logs.lines().filter((l) => l.level === 'warn' && String(l.msg).startsWith('Redis is unavailable'));

describe('when Redis is unreachable', () => {
  let h: Harness;
  let client: Pool;

  beforeAll(async () => {
    h = await startHarness({ env: { REDIS_URL: `redis://127.0.0.1:${await closedPort()}` } });
    client = gatewayClient(h.url);
  });
  afterAll(async () => {
    await client.close();
    await h.stop();
  });

  it('keeps serving, rate-limited in-process with the same bucket, and reports degraded readiness', async () => {
    const token = h.issuer.mint({ scope: 'orders:read' });
    const result = await burst(client, '/v1/orders', token, BURST);
    expectBurstAdmitsTheCapacity(result);
    expectLimitedResponse(result);

    const ready = await request(h.url).get('/readyz').expect(200);
    expect(ready.body.status).toBe('ready');
    expect(ready.body.checks.redis).toMatch(/^degraded: /);
    // One warning for the whole outage, not one per request.
    expect(unavailableWarnings(h)).toHaveLength(1);
  });
});

describe('when Redis goes away and comes back', () => {
  let h: Harness;
  let proxy: TcpProxy;
  const redisUrl = new URL(REDIS_URL);

  beforeAll(async () => {
    proxy = await new TcpProxy(redisUrl.hostname, Number(redisUrl.port || 6379)).open();
    h = await startHarness({ env: { REDIS_URL: `redis://127.0.0.1:${proxy.port}` }, logLevel: 'info' });
  });
  afterAll(async () => {
    await h.stop();
    await proxy.cut();
  });

  const readiness = async () => (await request(h.url).get('/readyz')).body.checks.redis as string;
  const call = (jti = randomUUID()) =>
    request(h.url)
      .get('/v1/orders')
      .set('Authorization', `Bearer ${h.issuer.mint({ jti })}`);

  it('degrades while it is away, warns once, and uses Redis again once it is back', async () => {
    expect(await readiness()).toBe('ok');
    await call().expect(200);

    await proxy.cut();
    await waitFor(
      async () => (await readiness()).startsWith('degraded: '),
      5000,
      'readiness to show degraded',
    );
    for (let i = 0; i < 5; i++) await call().expect(200);
    expect(unavailableWarnings(h)).toHaveLength(1);

    await proxy.open();
    await waitFor(async () => (await readiness()) === 'ok', 5000, 'readiness to recover');
    const jti = randomUUID();
    await call(jti).expect(200);
    const redis = new Redis(REDIS_URL);
    try {
      expect(await redis.exists(`${h.keyPrefix}ratelimit:${jti}`)).toBe(1);
    } finally {
      await redis.quit();
    }
    expect(h.logs.lines().some((l) => l.msg === 'Redis is available again')).toBe(true);
  });
});
