// Sign-in attempts counted in Redis over fixed windows, so that every replica sees them, under three
// limits (services/auth/README.md, "Throttling"):
//   - login + address: the tight limit. Failures from one address lock that address out for that
//     login only; the user signs in from their own address whatever a stranger elsewhere sends.
//   - login, across addresses: a looser ceiling, so that a guesser spread over many addresses still
//     meets a limit on one account.
//   - address, across logins: a ceiling on credential stuffing from one address.
// An attempt is counted on all three (atomically, in one script) before its password is checked,
// unless one of them is already at its maximum: parallel guesses cannot all read the same count and
// slip past a limit together, and a refused attempt counts nowhere. A successful sign-in deletes the
// login + address count and takes the same number back from the other two: those attempts were the
// user's own; what other addresses sent for the login stays.
import type { Redis } from 'ioredis';

export type ThrottleLimit = 'login_address' | 'login' | 'address';

export type AttemptReservation =
  { allowed: true } | { allowed: false; retryAfterSeconds: number; limit: ThrottleLimit };

/** Who is signing in: the login as typed (trimmed) and the client's counting address. */
export interface SignInAttempt {
  login: string;
  address: string;
}

export interface AttemptLimit {
  /** Attempts counted within the window past which further attempts are refused. */
  max: number;
  windowSeconds: number;
}

export interface SignInLimits {
  loginAddress: AttemptLimit;
  login: AttemptLimit;
  address: AttemptLimit;
}

export interface SignInThrottle {
  /** Counts an attempt under every limit, unless one of them is already reached. */
  reserveAttempt(attempt: SignInAttempt): Promise<AttemptReservation>;
  /** After a successful sign-in: see the file comment. */
  reset(attempt: SignInAttempt): Promise<void>;
}

const LIMITS: ThrottleLimit[] = ['login_address', 'login', 'address'];

// KEYS[1..3] the counters (login + address, login, address); ARGV max and window seconds of each, in
// that order. Returns {allowed 1|0, seconds until the blocking counters expire, blocking limit 1..3}.
const RESERVE_SCRIPT = `
local wait, blocking = 0, 0
for i = 1, 3 do
  local count = tonumber(redis.call('GET', KEYS[i]) or '0')
  if count >= tonumber(ARGV[2 * i - 1]) then
    local ttl = redis.call('TTL', KEYS[i])
    if ttl < 1 then ttl = tonumber(ARGV[2 * i]) end
    if ttl > wait then wait, blocking = ttl, i end
  end
end
if blocking > 0 then return {0, wait, blocking} end
for i = 1, 3 do
  local count = redis.call('INCR', KEYS[i])
  if count == 1 or redis.call('TTL', KEYS[i]) < 0 then redis.call('EXPIRE', KEYS[i], ARGV[2 * i]) end
end
return {1, 0, 0}`;

// KEYS as above. Deletes the login + address count and takes it back from the other two counters.
const RESET_SCRIPT = `
local own = tonumber(redis.call('GET', KEYS[1]) or '0')
redis.call('DEL', KEYS[1])
if own > 0 then
  for i = 2, 3 do
    local count = tonumber(redis.call('GET', KEYS[i]) or '0')
    if count <= own then redis.call('DEL', KEYS[i]) else redis.call('DECRBY', KEYS[i], own) end
  end
end
return own`;

export class RedisSignInThrottle implements SignInThrottle {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
    private readonly limits: SignInLimits,
  ) {}

  // The address comes first in the pair's key: an address (IPv4, or an IPv6 /64) never holds `|`,
  // so no two pairs share a key whatever a login holds.
  private keys({ login, address }: SignInAttempt): [string, string, string] {
    const base = `${this.prefix}auth:sign-in-attempts`;
    const key = login.toLowerCase();
    return [`${base}:login-address:${address}|${key}`, `${base}:login:${key}`, `${base}:address:${address}`];
  }

  async reserveAttempt(attempt: SignInAttempt): Promise<AttemptReservation> {
    const { loginAddress, login, address } = this.limits;
    const [allowed, wait, blocking] = (await this.redis.eval(
      RESERVE_SCRIPT,
      3,
      ...this.keys(attempt),
      ...[loginAddress, login, address].flatMap((l) => [String(l.max), String(l.windowSeconds)]),
    )) as [number, number, number];
    return allowed === 1
      ? { allowed: true }
      : { allowed: false, retryAfterSeconds: Math.max(1, wait), limit: LIMITS[blocking - 1]! };
  }

  async reset(attempt: SignInAttempt): Promise<void> {
    await this.redis.eval(RESET_SCRIPT, 3, ...this.keys(attempt));
  }
}
