// The shared token bucket: one Lua script, run atomically by Redis, so that every replica takes
// from the same bucket. Time comes from Redis (`TIME`), not from the replicas' clocks.
// The arithmetic is that of token-bucket.ts. A full bucket is the same as no key, so the key
// expires once the bucket would have refilled.
// The same script also reads other keys (MGET semantics: a missing key, or one that is not a
// string, reads as null), so that the gateway's revocation check and its token cost one round trip.
// Each take names its bucket's parameters; the keys live under the namespace the caller gives
// (the gateway's `<prefix>ratelimit:`, the auth service's `<prefix>auth:token-requests:`).
import type { Redis, Result } from 'ioredis';
import type { BucketParams, TakeResult } from './token-bucket';

const TAKE_TOKEN_LUA = `
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1])
local ts = tonumber(state[2])
if tokens == nil or ts == nil then
  tokens = capacity
elseif now > ts then
  tokens = math.min(capacity, tokens + (now - ts) * rate / 1000)
end
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
local missing = capacity - tokens
local full_ms = math.ceil(missing * 1000 / rate)
if full_ms > 0 then
  redis.call('HSET', KEYS[1], 'tokens', string.format('%.6f', tokens), 'ts', string.format('%.3f', now))
  redis.call('PEXPIRE', KEYS[1], full_ms + 1000)
else
  redis.call('DEL', KEYS[1])
end
local retry_after = 0
if allowed == 0 then
  retry_after = math.max(1, math.ceil((1 - tokens) / rate))
end
local result = { allowed, math.floor(tokens), math.ceil(missing / rate), retry_after }
if #KEYS > 1 then
  local values = redis.call('MGET', unpack(KEYS, 2))
  for i = 1, #values do
    result[4 + i] = values[i]
  end
end
return result
`;

const COMMAND = 'takeTokenAndRead';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** KEYS: the bucket, then the keys to read; ARGV: capacity, refill per second. */
    takeTokenAndRead(
      numberOfKeys: number,
      ...keysThenArgs: (string | number)[]
    ): Result<[number, number, number, number, ...(string | null)[]], Context>;
  }
}

export class RedisTokenBucket {
  constructor(
    private readonly redis: Redis,
    /** Prepended to every bucket's key, e.g. `<REDIS_KEY_PREFIX>ratelimit:`. */
    private readonly keyNamespace: string,
  ) {
    redis.defineCommand(COMMAND, { lua: TAKE_TOKEN_LUA });
  }

  keyOf(key: string): string {
    return `${this.keyNamespace}${key}`;
  }

  async take(key: string, params: BucketParams): Promise<TakeResult> {
    return (await this.takeAndRead(key, [], params)).result;
  }

  /** Takes a token from `key`'s bucket and, in the same script, reads `keys` (null where missing). */
  async takeAndRead(
    key: string,
    keys: readonly string[],
    params: BucketParams,
  ): Promise<{ result: TakeResult; values: (string | null)[] }> {
    const [allowed, remaining, resetSeconds, retryAfterSeconds, ...values] =
      await this.redis.takeTokenAndRead(
        1 + keys.length,
        this.keyOf(key),
        ...keys,
        params.capacity,
        params.refillPerSecond,
      );
    return { result: { allowed: allowed === 1, remaining, resetSeconds, retryAfterSeconds }, values };
  }
}
