// Rate limit per access token: the shared Redis bucket, or the in-process one while Redis is down.
import type { RedisConnection } from '../redis-connection';
import { MemoryTokenBucket } from './memory-token-bucket';
import { RedisTokenBucket } from './redis-token-bucket';
import type { BucketParams, TakeResult } from './token-bucket';

export class RateLimiter {
  private readonly shared: RedisTokenBucket;
  private readonly local: MemoryTokenBucket;

  constructor(
    private readonly connection: RedisConnection,
    readonly params: BucketParams,
    keyPrefix: string,
  ) {
    this.shared = new RedisTokenBucket(connection.redis, params, keyPrefix);
    this.local = new MemoryTokenBucket(params);
  }

  async take(jti: string): Promise<TakeResult> {
    if (this.connection.usable()) {
      try {
        const result = await this.shared.take(jti);
        this.connection.health.succeeded();
        return result;
      } catch (err) {
        this.connection.health.failed(err);
      }
    } else if (!this.connection.health.degraded) {
      this.connection.health.failed(new Error(`Redis connection is ${this.connection.redis.status}`));
    }
    return this.local.take(jti);
  }
}
