// A shopper signs in: credentials checked by the customers service (unknown login, wrong password
// and deactivated shopper alike fail). Each attempt is counted before its password is checked, so
// that at most `maxFailures` passwords are tried per login and window however many arrive at once;
// past that, and whenever the customers service itself throttles the login, the answer is
// "throttled" with when to retry (the sign-in page's 429), never an outage.
import { CredentialsThrottledError, type CustomersClient } from '../data-access/customers-client';
import type { SignInThrottle } from '../data-access/sign-in-throttle';
import { shopperSubject } from './subject';

export type SignInResult =
  | { outcome: 'signed_in'; sub: string }
  | { outcome: 'invalid_credentials' }
  | { outcome: 'throttled'; retryAfterSeconds: number };

export interface SignInDeps {
  customers: CustomersClient;
  throttle: SignInThrottle;
  maxFailures: number;
}

export async function signIn(
  deps: SignInDeps,
  input: { login: string; password: string },
): Promise<SignInResult> {
  const login = input.login.trim();
  const reservation = await deps.throttle.reserveAttempt(login, deps.maxFailures);
  if (!reservation.allowed) return { outcome: 'throttled', retryAfterSeconds: reservation.retryAfterSeconds };
  let user;
  try {
    user =
      login && input.password ? await deps.customers.verifyCredentials(login, input.password) : undefined;
  } catch (err) {
    if (err instanceof CredentialsThrottledError)
      return { outcome: 'throttled', retryAfterSeconds: err.retryAfterSeconds };
    throw err;
  }
  if (!user) return { outcome: 'invalid_credentials' };
  await deps.throttle.reset(login);
  return { outcome: 'signed_in', sub: shopperSubject(user.cust_id, user.login) };
}
