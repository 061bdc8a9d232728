import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { REDIS_URL } from '@ordering/testing';
import { MemoryTokenBucket, RedisTokenBucket } from '../src';

const params = { capacity: 240, refillPerSecond: 120 };

describe('the in-process token bucket (the arithmetic both buckets share)', () => {
  it('lets 240 requests through at once, refuses the next, and lets 60 more through 0.5 s later', () => {
    let now = 1_000_000;
    const bucket = new MemoryTokenBucket(1000, () => now);
    const first = bucket.take('jti-1', params);
    expect(first).toEqual({ allowed: true, remaining: 239, resetSeconds: 1, retryAfterSeconds: 0 });
    for (let i = 1; i < 240; i++) expect(bucket.take('jti-1', params).allowed).toBe(true);
    expect(bucket.take('jti-1', params)).toEqual({
      allowed: false,
      remaining: 0,
      resetSeconds: 2,
      retryAfterSeconds: 1,
    });

    now += 500;
    let passed = 0;
    while (bucket.take('jti-1', params).allowed) passed++;
    expect(passed).toBe(60);
    // Other tokens have buckets of their own.
    expect(bucket.take('jti-2', params).allowed).toBe(true);
  });

  it('reports the seconds until full, and is full again after capacity / rate seconds', () => {
    let now = 0;
    const bucket = new MemoryTokenBucket(1000, () => now);
    for (let i = 0; i < 120; i++) bucket.take('jti', params);
    // 121 tokens used (incl. the next take): ceil(121 / 120) = 2 s until full.
    expect(bucket.take('jti', params)).toMatchObject({ remaining: 119, resetSeconds: 2 });
    now += 2000;
    expect(bucket.take('jti', params)).toMatchObject({ remaining: 239, resetSeconds: 1 });
  });

  it('forgets full buckets first when it tracks too many tokens', () => {
    let now = 0;
    const bucket = new MemoryTokenBucket(3, () => now);
    for (const jti of ['a', 'b', 'c']) bucket.take(jti, params);
    now += 10_000;
    bucket.take('d', params);
    expect(bucket.size).toBe(1);
  });
});

describe('buckets of different sizes in one store (the auth service token endpoint limits)', () => {
  // One more every 10 s, and one every 100 s: fractional refill rates.
  const client = { capacity: 2, refillPerSecond: 1 / 10 };
  const slowUser = { capacity: 5, refillPerSecond: 1 / 100 };

  it('serves the burst, refuses with the seconds until one more passes, and refills', () => {
    let now = 1_000_000;
    const buckets = new MemoryTokenBucket(1000, () => now);
    expect([buckets.take('a', client).allowed, buckets.take('a', client).allowed]).toEqual([true, true]);
    expect(buckets.take('a', client)).toMatchObject({ allowed: false, retryAfterSeconds: 10 });
    now += 4_000;
    expect(buckets.take('a', client)).toMatchObject({ allowed: false, retryAfterSeconds: 6 });
    expect(buckets.take('b', client).allowed).toBe(true);
    now += 6_000;
    expect(buckets.take('a', client).allowed).toBe(true);
  });

  it('when it holds too many buckets, forgets only those full again under their own parameters', () => {
    let now = 0;
    const buckets = new MemoryTokenBucket(2, () => now);
    for (let i = 0; i < 3; i++) buckets.take('user', slowUser); // 2 of 5 left
    buckets.take('c1', client); // 1 of 2 left
    now += 10_000; // c1 is full again; the user bucket is not (2.1 of 5)
    buckets.take('c2', client); // a third bucket: c1 is forgotten, the user bucket kept
    expect(buckets.size).toBe(2);
    expect([
      buckets.take('user', slowUser).allowed,
      buckets.take('user', slowUser).allowed,
      buckets.take('user', slowUser),
    ]).toEqual([true, true, expect.objectContaining({ allowed: false, retryAfterSeconds: 90 })]);
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
    const slow = { capacity: 10, refillPerSecond: 1 };
    const bucket = new RedisTokenBucket(redis, prefix);
    const results = await Promise.all(Array.from({ length: 30 }, () => bucket.take('jti-concurrent', slow)));
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
    const bucket = new RedisTokenBucket(redis, prefix);
    expect(await bucket.take('jti-api', params)).toEqual({
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

  it('refills a slow bucket by its fraction of a token a second, with the same arithmetic', async () => {
    const bucket = new RedisTokenBucket(redis, prefix);
    const slow = { capacity: 2, refillPerSecond: 1 / 30 };
    const results = [];
    for (let i = 0; i < 3; i++) results.push(await bucket.take('slow', slow));
    expect(results.map((r) => r.allowed)).toEqual([true, true, false]);
    expect(results[2]).toMatchObject({ retryAfterSeconds: 30, resetSeconds: 60 });
    // The key lasts until the bucket is full again: two tokens at one every 30 s.
    expect(await redis.pttl(bucket.keyOf('slow'))).toBeGreaterThan(59_000);
  });

  it('reads other keys in the same script run: their values, null when missing or not a string', async () => {
    // Refilling one token a second, so the count after two takes does not depend on the machine's speed.
    const slow = { capacity: 240, refillPerSecond: 1 };
    const bucket = new RedisTokenBucket(redis, prefix);
    await redis.set(`${prefix}present`, '1700000000');
    await redis.hset(`${prefix}a-hash`, 'f', 'v');
    const { result, values } = await bucket.takeAndRead(
      'jti-read',
      [`${prefix}absent`, `${prefix}present`, `${prefix}a-hash`],
      slow,
    );
    expect(result).toEqual({ allowed: true, remaining: 239, resetSeconds: 1, retryAfterSeconds: 0 });
    expect(values).toEqual([null, '1700000000', null]);
    expect((await bucket.takeAndRead('jti-read', [], slow)).values).toEqual([]);
    expect(await redis.hget(bucket.keyOf('jti-read'), 'tokens')).toMatch(/^238\./);
  });
});
