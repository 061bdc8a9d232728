// Token buckets of the token endpoint (`POST /oauth/token`), in Redis so that every auth replica
// takes from the same bucket: one Lua script, run atomically, time from Redis `TIME` (not the
// replicas' clocks), the arithmetic of the gateway's per-token bucket (gateway/src/rate-limit). A
// full bucket is the same as no key, so a key expires once its bucket would be full again.
//
// While Redis is unreachable the token endpoint keeps issuing tokens, as the gateway keeps serving:
// each replica takes from an in-process bucket with the same parameters (with N replicas a client
// may get up to N times its limit during the outage), and one warning is logged per outage.
import type { Redis } from 'ioredis';
import type { Logger } from '@ordering/http';

export interface TokenBucketParams {
  /** Requests that may pass at once (a full bucket). */
  burst: number;
  /** One more request is allowed every this many seconds, up to `burst`. */
  refillSeconds: number;
}

export interface TokenBucketTake {
  allowed: boolean;
  /** Whole seconds (>= 1) until one request passes; 0 when allowed. */
  retryAfterSeconds: number;
}

export interface TokenRequestThrottle {
  /** Takes one request from the bucket `key` (created full), unless it is empty. */
  take(key: string, params: TokenBucketParams): Promise<TokenBucketTake>;
}

// KEYS[1] the bucket; ARGV burst, refill seconds. Returns {allowed 1|0, retry-after seconds}.
const TAKE_SCRIPT = `
local burst = tonumber(ARGV[1])
local refill_ms = tonumber(ARGV[2]) * 1000
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local state = redis.call('HMGET', KEYS[1], 'tokens', 'ts')
local tokens = tonumber(state[1])
local ts = tonumber(state[2])
if tokens == nil or ts == nil then
  tokens = burst
elseif now > ts then
  tokens = math.min(burst, tokens + (now - ts) / refill_ms)
end
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
local full_ms = math.ceil((burst - tokens) * refill_ms)
if full_ms > 0 then
  redis.call('HSET', KEYS[1], 'tokens', string.format('%.6f', tokens), 'ts', string.format('%.3f', now))
  redis.call('PEXPIRE', KEYS[1], full_ms + 1000)
else
  redis.call('DEL', KEYS[1])
end
local retry_after = 0
if allowed == 0 then
  retry_after = math.max(1, math.ceil((1 - tokens) * refill_ms / 1000))
end
return {allowed, retry_after}`;

interface LocalBucket {
  tokens: number;
  atMs: number;
  params: TokenBucketParams;
}

/** The same bucket held by this process only: the fallback while Redis is unreachable. */
export class InProcessTokenBuckets {
  private readonly buckets = new Map<string, LocalBucket>();

  constructor(
    private readonly now: () => number = Date.now,
    /** Above this many buckets, the full ones are dropped (a full bucket equals a new one). */
    private readonly maxEntries = 100_000,
  ) {}

  take(key: string, params: TokenBucketParams): TokenBucketTake {
    const nowMs = this.now();
    const refillMs = params.refillSeconds * 1000;
    const previous = this.buckets.get(key);
    let tokens = params.burst;
    if (previous)
      tokens = Math.min(params.burst, previous.tokens + Math.max(0, nowMs - previous.atMs) / refillMs);
    const allowed = tokens >= 1;
    if (allowed) tokens -= 1;
    this.buckets.delete(key);
    this.buckets.set(key, { tokens, atMs: nowMs, params });
    if (this.buckets.size > this.maxEntries) this.evict(nowMs);
    return {
      allowed,
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil(((1 - tokens) * refillMs) / 1000)),
    };
  }

  private evict(nowMs: number): void {
    for (const [key, b] of this.buckets) {
      if (b.tokens + (nowMs - b.atMs) / (b.params.refillSeconds * 1000) >= b.params.burst)
        this.buckets.delete(key);
    }
    // Still too many busy buckets: forget the least recently used (they start full again).
    for (const key of this.buckets.keys()) {
      if (this.buckets.size <= this.maxEntries) break;
      this.buckets.delete(key);
    }
  }
}

export class RedisTokenRequestThrottle implements TokenRequestThrottle {
  private readonly local = new InProcessTokenBuckets();
  private outageSince: number | undefined;

  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly logger: Logger,
  ) {}

  key(bucket: string): string {
    return `${this.prefix}auth:token-requests:${bucket}`;
  }

  async take(bucket: string, params: TokenBucketParams): Promise<TokenBucketTake> {
    // A request never waits for Redis to come back (the connection would queue the command).
    if (this.redis.status === 'ready') {
      try {
        const [allowed, retryAfter] = (await this.redis.eval(
          TAKE_SCRIPT,
          1,
          this.key(bucket),
          String(params.burst),
          String(params.refillSeconds),
        )) as [number, number];
        this.recovered();
        return { allowed: allowed === 1, retryAfterSeconds: retryAfter };
      } catch (err) {
        this.failed(err);
      }
    } else {
      this.failed(new Error(`Redis connection is ${this.redis.status}`));
    }
    return this.local.take(bucket, params);
  }

  private failed(err: unknown): void {
    if (this.outageSince !== undefined) return;
    this.outageSince = Date.now();
    this.logger.warn(
      { err },
      'Redis is unavailable: token endpoint limits are counted per auth process until it answers',
    );
  }

  private recovered(): void {
    if (this.outageSince === undefined) return;
    const outageMs = Date.now() - this.outageSince;
    this.outageSince = undefined;
    this.logger.info({ outage_ms: outageMs }, 'Redis is available again: token endpoint limits are shared');
  }
}
