// Failed sign-ins per login, counted in Redis over a window, so that every replica sees them.
import type { Redis } from 'ioredis';

export interface SignInThrottle {
  /** Failures of this login in the current window and the seconds until the window ends. */
  failures(login: string): Promise<{ count: number; resetsInSeconds: number }>;
  recordFailure(login: string): Promise<number>;
  reset(login: string): Promise<void>;
}

export class RedisSignInThrottle implements SignInThrottle {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly windowSeconds: number,
  ) {}

  private key(login: string): string {
    return `${this.prefix}auth:sign-in-failures:${login.toLowerCase()}`;
  }

  async failures(login: string): Promise<{ count: number; resetsInSeconds: number }> {
    const [[, count], [, ttl]] = (await this.redis
      .multi()
      .get(this.key(login))
      .ttl(this.key(login))
      .exec()) as [[Error | null, string | null], [Error | null, number]];
    return { count: Number(count ?? 0), resetsInSeconds: Math.max(0, ttl) };
  }

  async recordFailure(login: string): Promise<number> {
    const key = this.key(login);
    const [[, count]] = (await this.redis.multi().incr(key).expire(key, this.windowSeconds, 'NX').exec()) as [
      [Error | null, number],
    ];
    return count;
  }

  async reset(login: string): Promise<void> {
    await this.redis.del(this.key(login));
  }
}
