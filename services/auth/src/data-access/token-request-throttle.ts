// Token buckets of the token endpoint (`POST /oauth/token`), in Redis so that every auth replica
// takes from the same bucket: the token buckets of @ordering/rate-limit (one Lua script, run
// atomically, time from Redis `TIME`, the gateway's per-token bucket too), under
// `<prefix>auth:token-requests:`. A full bucket is the same as no key, so a key expires once its
// bucket would be full again.
//
// While Redis is unreachable the token endpoint keeps issuing tokens, as the gateway keeps serving:
// each replica takes from an in-process bucket with the same parameters (with N replicas a client
// may get up to N times its limit during the outage), and one warning is logged per outage.
import type { Redis } from 'ioredis';
import type { Logger } from '@ordering/http';
import { type BucketParams, MemoryTokenBucket, RedisHealth, RedisTokenBucket } from '@ordering/rate-limit';

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

const bucketParams = ({ burst, refillSeconds }: TokenBucketParams): BucketParams => ({
  capacity: burst,
  refillPerSecond: 1 / refillSeconds,
});

export class RedisTokenRequestThrottle implements TokenRequestThrottle {
  private readonly shared: RedisTokenBucket;
  private readonly local = new MemoryTokenBucket();
  private readonly health: RedisHealth;

  constructor(
    private readonly redis: Redis,
    prefix: string,
    logger: Logger,
  ) {
    this.shared = new RedisTokenBucket(redis, `${prefix}auth:token-requests:`);
    this.health = new RedisHealth(
      logger,
      'token endpoint limits are counted per auth process until it answers',
    );
  }

  async take(bucket: string, params: TokenBucketParams): Promise<TokenBucketTake> {
    // A request never waits for Redis to come back (the connection would queue the command).
    if (this.redis.status === 'ready') {
      try {
        const { allowed, retryAfterSeconds } = await this.shared.take(bucket, bucketParams(params));
        this.health.succeeded();
        return { allowed, retryAfterSeconds };
      } catch (err) {
        this.health.failed(err);
      }
    } else {
      this.health.failed(new Error(`Redis connection is ${this.redis.status}`));
    }
    const { allowed, retryAfterSeconds } = this.local.take(bucket, bucketParams(params));
    return { allowed, retryAfterSeconds };
  }
}
