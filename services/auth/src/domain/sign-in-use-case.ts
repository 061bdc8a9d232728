// A shopper signs in: credentials checked by the customers service (unknown login, wrong password
// and deactivated shopper alike fail). Each attempt is counted before its password is checked, per
// login and client address (the tight limit), per login across addresses and per address across
// logins (looser ceilings; see data-access/sign-in-throttle.ts), so that at most so many passwords
// are tried however many arrive at once, and a stranger elsewhere cannot lock a user out of their
// own address. Past a limit, and whenever the customers service itself throttles the attempt, the
// answer is "throttled" with when to retry (the sign-in page's 429), never an outage.
import { addressKeyOf } from '@ordering/http';
import { CredentialsThrottledError, type CustomersClient } from '../data-access/customers-client';
import type { SignInThrottle, ThrottleLimit } from '../data-access/sign-in-throttle';
import { shopperSubject } from './subject';

export type SignInResult =
  | { outcome: 'signed_in'; sub: string }
  | { outcome: 'invalid_credentials' }
  | { outcome: 'throttled'; retryAfterSeconds: number; limit: ThrottleLimit | 'customers' };

export interface SignInDeps {
  customers: CustomersClient;
  throttle: SignInThrottle;
}

export async function signIn(
  deps: SignInDeps,
  input: { login: string; password: string; clientAddress: string | undefined },
): Promise<SignInResult> {
  const login = input.login.trim();
  const attempt = { login, address: addressKeyOf(input.clientAddress) };
  const reservation = await deps.throttle.reserveAttempt(attempt);
  if (!reservation.allowed)
    return {
      outcome: 'throttled',
      retryAfterSeconds: reservation.retryAfterSeconds,
      limit: reservation.limit,
    };
  let user;
  try {
    user =
      login && input.password
        ? await deps.customers.verifyCredentials(login, input.password, attempt.address)
        : undefined;
  } catch (err) {
    if (err instanceof CredentialsThrottledError)
      return { outcome: 'throttled', retryAfterSeconds: err.retryAfterSeconds, limit: 'customers' };
    throw err;
  }
  if (!user) return { outcome: 'invalid_credentials' };
  await deps.throttle.reset(attempt);
  return { outcome: 'signed_in', sub: shopperSubject(user.cust_id, user.login) };
}
