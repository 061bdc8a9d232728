import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { MemoryTokenBucket } from '../src/rate-limit/memory-token-bucket';
import { RedisTokenBucket } from '../src/rate-limit/redis-token-bucket';
import { REDIS_URL } from './support/gateway-harness';

const params = { capacity: 240, refillPerSecond: 120 };

describe('the in-process token bucket (the arithmetic both buckets share)', () => {
  it('lets 240 requests through at once, refuses the next, and lets 60 more through 0.5 s later', () => {
    let now = 1_000_000;
    const bucket = new MemoryTokenBucket(params, 1000, () => now);
    const first = bucket.take('jti-1');
    expect(first).toEqual({ allowed: true, remaining: 239, resetSeconds: 1, retryAfterSeconds: 0 });
    for (let i = 1; i < 240; i++) expect(bucket.take('jti-1').allowed).toBe(true);
    expect(bucket.take('jti-1')).toEqual({
      allowed: false,
      remaining: 0,
      resetSeconds: 2,
      retryAfterSeconds: 1,
    });

    now += 500;
    let passed = 0;
    while (bucket.take('jti-1').allowed) passed++;
    expect(passed).toBe(60);
    // Other tokens have buckets of their own.
    expect(bucket.take('jti-2').allowed).toBe(true);
  });

  it('reports the seconds until full, and is full again after capacity / rate seconds', () => {
    let now = 0;
    const bucket = new MemoryTokenBucket(params, 1000, () => now);
    for (let i = 0; i < 120; i++) bucket.take('jti');
    // 121 tokens used (incl. the next take): ceil(121 / 120) = 2 s until full.
    expect(bucket.take('jti')).toMatchObject({ remaining: 119, resetSeconds: 2 });
    now += 2000;
    expect(bucket.take('jti')).toMatchObject({ remaining: 239, resetSeconds: 1 });
  });

  it('forgets full buckets first when it tracks too many tokens', () => {
    let now = 0;
    const bucket = new MemoryTokenBucket(params, 3, () => now);
    for (const jti of ['a', 'b', 'c']) bucket.take(jti);
    now += 10_000;
    bucket.take('d');
    expect(bucket.size).toBe(1);
  });
});

describe('the Redis token bucket (one Lua script)', () => {
  let redis: Redis;
  const prefix = `test:bucket:${randomBytes(6).toString('hex')}:`;

  beforeAll(() => {
    redis = new Redis(REDIS_URL);
  });
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length > 0) await redis.del(...keys);
    await redis.quit();
  });

  it('gives exactly `capacity` of many concurrent takes (atomic), with the limit fields', async () => {
    // 1 token per second: no refill worth a token during the test.
    const bucket = new RedisTokenBucket(redis, { capacity: 10, refillPerSecond: 1 }, prefix);
    const results = await Promise.all(Array.from({ length: 30 }, () => bucket.take('jti-concurrent')));
    expect(results.filter((r) => r.allowed)).toHaveLength(10);
    expect([...results.filter((r) => r.allowed).map((r) => r.remaining)].sort((a, b) => a - b)).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
    ]);
    const refused = results.filter((r) => !r.allowed);
    expect(
      refused.every((r) => r.remaining === 0 && r.retryAfterSeconds === 1 && r.resetSeconds === 10),
    ).toBe(true);
  });

  it('matches the in-process arithmetic for the API parameters', async () => {
    const bucket = new RedisTokenBucket(redis, params, prefix);
    expect(await bucket.take('jti-api')).toEqual({
      allowed: true,
      remaining: 239,
      resetSeconds: 1,
      retryAfterSeconds: 0,
    });
    const key = bucket.keyOf('jti-api');
    // The key expires once the bucket would be full again (plus a second), so idle tokens cost nothing.
    const ttl = await redis.pttl(key);
    // One token short: full again in ceil(1000 / 120) = 9 ms, + 1000 ms.
    expect(ttl).toBeGreaterThan(900);
    expect(ttl).toBeLessThanOrEqual(1009);
  });

  it('reads other keys in the same script run: their values, null when missing or not a string', async () => {
    // Refilling one token a second, so the count after two takes does not depend on the machine's speed.
    const bucket = new RedisTokenBucket(redis, { capacity: 240, refillPerSecond: 1 }, prefix);
    await redis.set(`${prefix}present`, '1700000000');
    await redis.hset(`${prefix}a-hash`, 'f', 'v');
    const { result, values } = await bucket.takeAndRead('jti-read', [
      `${prefix}absent`,
      `${prefix}present`,
      `${prefix}a-hash`,
    ]);
    expect(result).toEqual({ allowed: true, remaining: 239, resetSeconds: 1, retryAfterSeconds: 0 });
    expect(values).toEqual([null, '1700000000', null]);
    expect((await bucket.takeAndRead('jti-read', [])).values).toEqual([]);
    expect(await redis.hget(bucket.keyOf('jti-read'), 'tokens')).toMatch(/^238\./);
  });
});
