// The token endpoint limit's fallback while Redis is unreachable: the same bucket, in one process.
import { InProcessTokenBuckets } from '../src/data-access/token-request-throttle';

const client = { burst: 2, refillSeconds: 10 };

it('serves the burst, refuses with the seconds until one more passes, and refills', () => {
  let now = 1_000_000;
  const buckets = new InProcessTokenBuckets(() => now);
  expect([buckets.take('a', client), buckets.take('a', client)]).toEqual([
    { allowed: true, retryAfterSeconds: 0 },
    { allowed: true, retryAfterSeconds: 0 },
  ]);
  expect(buckets.take('a', client)).toEqual({ allowed: false, retryAfterSeconds: 10 });
  now += 4_000;
  expect(buckets.take('a', client)).toEqual({ allowed: false, retryAfterSeconds: 6 });
  expect(buckets.take('b', client).allowed).toBe(true);
  now += 6_000;
  expect(buckets.take('a', client).allowed).toBe(true);
});

it('when it holds too many buckets, forgets only those full again under their own limits', () => {
  let now = 0;
  const slowUser = { burst: 5, refillSeconds: 100 };
  const buckets = new InProcessTokenBuckets(() => now, 2);
  for (let i = 0; i < 3; i++) buckets.take('user', slowUser); // 2 of 5 left
  buckets.take('c1', client); // 1 of 2 left
  now += 10_000; // c1 is full again; the user bucket is not (2.1 of 5)
  buckets.take('c2', client); // a third bucket: c1 is forgotten, the user bucket kept
  expect([
    buckets.take('user', slowUser),
    buckets.take('user', slowUser),
    buckets.take('user', slowUser),
  ]).toEqual([
    { allowed: true, retryAfterSeconds: 0 },
    { allowed: true, retryAfterSeconds: 0 },
    { allowed: false, retryAfterSeconds: 90 },
  ]);
});
