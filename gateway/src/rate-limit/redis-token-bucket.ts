// The shared token bucket: one Lua script, run atomically by Redis, so that every gateway replica
// takes from the same bucket. Time comes from Redis (`TIME`), not from the replicas' clocks.
// The arithmetic is that of token-bucket.ts. A full bucket is the same as no key, so the key
// expires once the bucket would have refilled.
// The same script also reads other keys (MGET semantics: a missing key, or one that is not a
// string, reads as null), so that a request's revocation check and its token cost one round trip.
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

const COMMAND = 'gatewayTakeToken';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    /** KEYS: the bucket, then the keys to read; ARGV: capacity, refill per second. */
    gatewayTakeToken(
      numberOfKeys: number,
      ...keysThenArgs: (string | number)[]
    ): Result<[number, number, number, number, ...(string | null)[]], Context>;
  }
}

export class RedisTokenBucket {
  constructor(
    private readonly redis: Redis,
    private readonly params: BucketParams,
    private readonly keyPrefix: string,
  ) {
    redis.defineCommand(COMMAND, { lua: TAKE_TOKEN_LUA });
  }

  keyOf(jti: string): string {
    return `${this.keyPrefix}ratelimit:${jti}`;
  }

  async take(jti: string): Promise<TakeResult> {
    return (await this.takeAndRead(jti, [])).result;
  }

  /** Takes a token and, in the same script, reads `keys` (null where missing). */
  async takeAndRead(
    jti: string,
    keys: readonly string[],
  ): Promise<{ result: TakeResult; values: (string | null)[] }> {
    const [allowed, remaining, resetSeconds, retryAfterSeconds, ...values] =
      await this.redis.gatewayTakeToken(
        1 + keys.length,
        this.keyOf(jti),
        ...keys,
        this.params.capacity,
        this.params.refillPerSecond,
      );
    return { result: { allowed: allowed === 1, remaining, resetSeconds, retryAfterSeconds }, values };
  }
}
