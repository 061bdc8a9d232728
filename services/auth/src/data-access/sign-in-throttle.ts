// Sign-in attempts per login, counted in Redis over a window, so that every replica sees them. An
// attempt is counted (atomically, in one script) before its password is checked: parallel guesses
// cannot all read the same count and slip past the limit together. A successful sign-in clears it.
import type { Redis } from 'ioredis';

export type AttemptReservation = { allowed: true } | { allowed: false; retryAfterSeconds: number };

export interface SignInThrottle {
  /** Counts an attempt for this login, unless `max` attempts are already counted in the window. */
  reserveAttempt(login: string, max: number): Promise<AttemptReservation>;
  reset(login: string): Promise<void>;
}

// KEYS[1] the login's counter; ARGV max, window seconds. Returns {allowed 1|0, seconds left}.
const RESERVE_SCRIPT = `
local count = tonumber(redis.call('GET', KEYS[1]) or '0')
if count >= tonumber(ARGV[1]) then
  return {0, redis.call('TTL', KEYS[1])}
end
count = redis.call('INCR', KEYS[1])
if count == 1 or redis.call('TTL', KEYS[1]) < 0 then redis.call('EXPIRE', KEYS[1], ARGV[2]) end
return {1, redis.call('TTL', KEYS[1])}`;

export class RedisSignInThrottle implements SignInThrottle {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly windowSeconds: number,
  ) {}

  private key(login: string): string {
    return `${this.prefix}auth:sign-in-failures:${login.toLowerCase()}`;
  }

  async reserveAttempt(login: string, max: number): Promise<AttemptReservation> {
    const [allowed, ttl] = (await this.redis.eval(
      RESERVE_SCRIPT,
      1,
      this.key(login),
      String(max),
      String(this.windowSeconds),
    )) as [number, number];
    return allowed === 1 ? { allowed: true } : { allowed: false, retryAfterSeconds: Math.max(1, ttl) };
  }

  async reset(login: string): Promise<void> {
    await this.redis.del(this.key(login));
  }
}
