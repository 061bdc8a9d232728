// The shared token bucket: one Lua script, run atomically by Redis, so that every gateway replica
// takes from the same bucket. Time comes from Redis (`TIME`), not from the replicas' clocks.
// The arithmetic is that of token-bucket.ts. A full bucket is the same as no key, so the key
// expires once the bucket would have refilled.
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
return { allowed, math.floor(tokens), math.ceil(missing / rate), retry_after }
`;

const COMMAND = 'gatewayTakeToken';

declare module 'ioredis' {
  interface RedisCommander<Context> {
    gatewayTakeToken(
      key: string,
      capacity: number,
      refillPerSecond: number,
    ): Result<[number, number, number, number], Context>;
  }
}

export class RedisTokenBucket {
  constructor(
    private readonly redis: Redis,
    private readonly params: BucketParams,
    private readonly keyPrefix: string,
  ) {
    redis.defineCommand(COMMAND, { numberOfKeys: 1, lua: TAKE_TOKEN_LUA });
  }

  keyOf(jti: string): string {
    return `${this.keyPrefix}ratelimit:${jti}`;
  }

  async take(jti: string): Promise<TakeResult> {
    const [allowed, remaining, resetSeconds, retryAfterSeconds] = await this.redis.gatewayTakeToken(
      this.keyOf(jti),
      this.params.capacity,
      this.params.refillPerSecond,
    );
    return { allowed: allowed === 1, remaining, resetSeconds, retryAfterSeconds };
  }
}
