// Rate limit per access token: the shared Redis bucket, or the in-process one while Redis is down.
// The Redis script can read other keys in the same round trip (the revocation denylist).
import {
  type BucketParams,
  MemoryTokenBucket,
  RedisTokenBucket,
  type TakeResult,
} from '@ordering/rate-limit';
import type { RedisConnection } from '../redis-connection';

export interface TakeAndRead {
  bucket: TakeResult;
  /** The values of the keys asked for (null where missing); undefined while Redis is unusable. */
  values: (string | null)[] | undefined;
}

export class RateLimiter {
  private readonly shared: RedisTokenBucket;
  private readonly local: MemoryTokenBucket;

  constructor(
    private readonly connection: RedisConnection,
    readonly params: BucketParams,
    keyPrefix: string,
  ) {
    this.shared = new RedisTokenBucket(connection.redis, `${keyPrefix}ratelimit:`);
    this.local = new MemoryTokenBucket();
  }

  /** Takes a token from `jti`'s bucket and reads `keys` in the same Redis round trip. */
  async takeAndRead(jti: string, keys: readonly string[]): Promise<TakeAndRead> {
    if (this.connection.usable()) {
      try {
        const { result, values } = await this.shared.takeAndRead(jti, keys, this.params);
        this.connection.health.succeeded();
        return { bucket: result, values };
      } catch (err) {
        this.connection.health.failed(err);
      }
    } else if (!this.connection.health.degraded) {
      this.connection.health.failed(new Error(`Redis connection is ${this.connection.redis.status}`));
    }
    return { bucket: this.local.take(jti, this.params), values: undefined };
  }
}
