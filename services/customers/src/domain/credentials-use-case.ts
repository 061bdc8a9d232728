// Sign-in credentials for the auth service's sign-in page. Verification answers the same for an
// unknown login, a wrong password and a deactivated user, after the same work (a hash is always
// computed). Attempts are counted per login and client address (the address the auth service
// trusts, sent as `client_address`), so that failures sent from one address never slow down or
// refuse the user at another: after `freeFailures` failures from an address each answer there
// waits a delay that doubles per further failure, up to `maxDelayMs` (2 s, well under the auth
// service's 5 s timeout: a deliberate slow-down must never look like an outage), and past
// `maxAttempts` attempts in the window the password is not checked at all: 429 too_many_attempts
// with Retry-After, which the sign-in page shows as its own 429. A looser ceiling counts the login's
// attempts from every address (`loginMaxAttempts` per fixed `loginWindowMs`), above the auth
// service's own, so that it refuses only when that one was bypassed or lost (Redis flushed).
import { createHash, randomBytes } from 'node:crypto';
import { AppError, InputError, NotFoundError } from '@ordering/errors';
import type { CustomersDatabase } from '../data-access/customers-database';
import type { Clock } from '@ordering/service';
import type { PasswordHasher } from './password-hasher';
import type { Shopper } from './shopper';

export class InvalidCredentialsError extends AppError {
  constructor() {
    super(401, 'authentication_error', 'invalid_credentials', 'The login or the password is wrong');
  }
}

/** 429: too many sign-in attempts for one login (from one address, or in all) in the window; the
 * password was not checked. */
export class TooManyAttemptsError extends AppError {
  constructor(retryAfterSeconds: number) {
    super(
      429,
      'rate_limit_error',
      'too_many_attempts',
      'Too many sign-in attempts for this login; retry later',
      {
        headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
      },
    );
  }
}

export interface CredentialPolicy {
  /** Failures of a login from one address answered without delay; default 3. */
  freeFailures: number;
  /** Delay after the first slowed failure; doubles per failure; default 500 ms. */
  baseDelayMs: number;
  maxDelayMs: number;
  /** Attempts of a login from one address past which its password is not checked (429); default 10. */
  maxAttempts: number;
  /** A login's count from one address is forgotten this long after its last failure; default 15 min. */
  failureWindowMs: number;
  /** Attempts of a login from every address in a window past which it is refused (429); default 300. */
  loginMaxAttempts: number;
  /** The fixed window of `loginMaxAttempts`; default 1 h. */
  loginWindowMs: number;
  /** Lifetime of a one-time password link; default 72 h. */
  passwordLinkTtlMs: number;
  minPasswordLength: number;
}

export const DEFAULT_CREDENTIAL_POLICY: CredentialPolicy = {
  freeFailures: 3,
  baseDelayMs: 500,
  maxDelayMs: 2_000,
  maxAttempts: 10,
  failureWindowMs: 15 * 60_000,
  loginMaxAttempts: 300,
  loginWindowMs: 3600_000,
  passwordLinkTtlMs: 72 * 3600_000,
  minPasswordLength: 10,
};

const tokenHash = (token: string) => createHash('sha256').update(token).digest('hex');

export class Credentials {
  constructor(
    private readonly db: CustomersDatabase,
    private readonly hasher: PasswordHasher,
    private readonly clock: Clock,
    private readonly policy: CredentialPolicy = DEFAULT_CREDENTIAL_POLICY,
  ) {}

  /** The delay owed before answering for a login with `failures` recent failures. */
  delayFor(failures: number): number {
    if (failures < this.policy.freeFailures) return 0;
    const exponent = Math.min(failures - this.policy.freeFailures, 20);
    return Math.min(this.policy.baseDelayMs * 2 ** exponent, this.policy.maxDelayMs);
  }

  /**
   * The user when login and password match an active user; InvalidCredentialsError otherwise.
   * `clientAddress`: the auth service's counting address of the person signing in; a caller that
   * sends none is counted under '' (all such callers together, per login).
   */
  async verify(login: string, password: string, clientAddress = ''): Promise<Shopper> {
    const key = login.trim().toLowerCase();
    const now = this.clock.now();
    // The attempt counts as a failure until it succeeds: parallel guesses cannot share one count.
    const attempts = await this.db.users.recordAddressAttempt(
      key,
      clientAddress,
      now,
      this.policy.failureWindowMs,
    );
    if (attempts > this.policy.maxAttempts)
      throw new TooManyAttemptsError(this.policy.failureWindowMs / 1000);
    const ceiling = await this.db.users.recordLoginAttempt(key, now, this.policy.loginWindowMs);
    if (ceiling.attempts > this.policy.loginMaxAttempts)
      throw new TooManyAttemptsError(
        (ceiling.windowStartedAt.getTime() + this.policy.loginWindowMs - now.getTime()) / 1000,
      );
    const delay = this.delayFor(attempts - 1);

    const stored = await this.db.users.passwordHashOf(key);
    const ok = await this.hasher.verify(password, stored?.hash ?? null);
    if (delay > 0) await this.clock.sleep(delay);
    if (!ok || !stored || stored.status !== 'active') throw new InvalidCredentialsError();
    await this.db.users.resetFailures(key, clientAddress, attempts);
    return (await this.db.users.find(stored.login))!;
  }

  /** The hash to store for a new password (422 param `password` when too short). */
  async hashNewPassword(password: string): Promise<string> {
    this.assertStrongEnough(password);
    return this.hasher.hash(password);
  }

  /** Forgets failure counts past their windows (maintenance). */
  purgeStaleFailures(): Promise<number> {
    const now = this.clock.now().getTime();
    return this.db.users.purgeFailuresBefore(
      new Date(now - this.policy.failureWindowMs),
      new Date(now - this.policy.loginWindowMs),
    );
  }

  /** Sets a password directly (operator CLI). */
  async setPassword(login: string, password: string): Promise<void> {
    this.assertStrongEnough(password);
    const user = await this.db.users.find(login);
    if (!user) throw new NotFoundError(`No such user: ${login}`);
    await this.db.users.setPasswordHash(user.login, await this.hasher.hash(password), this.clock.now());
  }

  /** A one-time token for a set-password link; only its hash is stored. */
  async createPasswordLink(login: string): Promise<{ token: string; expires_at: string; login: string }> {
    const user = await this.db.users.find(login);
    if (!user) throw new NotFoundError(`No such user: ${login}`);
    const token = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    const expires = new Date(now.getTime() + this.policy.passwordLinkTtlMs);
    await this.db.users.insertPasswordToken(tokenHash(token), user.login, expires, now);
    return { token, expires_at: expires.toISOString(), login: user.login };
  }

  /** Uses a one-time token (once, before it expires) to set the password. */
  async setPasswordWithToken(token: string, password: string): Promise<Shopper> {
    this.assertStrongEnough(password);
    const hash = await this.hasher.hash(password);
    return this.db.transaction(async (tx) => {
      const login = await tx.users.consumePasswordToken(tokenHash(token), this.clock.now());
      if (!login) throw new InputError('This link is unknown, used or expired', 'token', 'invalid_token');
      await tx.users.setPasswordHash(login, hash, this.clock.now());
      return (await tx.users.find(login))!;
    });
  }

  /** 422 param `password` when it is too short. */
  assertStrongEnough(password: string): void {
    if (password.length < this.policy.minPasswordLength) {
      throw new InputError(
        `password must have at least ${this.policy.minPasswordLength} characters`,
        'password',
      );
    }
  }
}
