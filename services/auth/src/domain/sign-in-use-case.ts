// A shopper signs in: credentials checked by the customers service (unknown login, wrong password
// and deactivated shopper alike fail), repeated failures of one login refused for a while.
import type { CustomersClient } from '../data-access/customers-client';
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
  const { count, resetsInSeconds } = await deps.throttle.failures(login);
  if (count >= deps.maxFailures)
    return { outcome: 'throttled', retryAfterSeconds: Math.max(1, resetsInSeconds) };
  const user =
    login && input.password ? await deps.customers.verifyCredentials(login, input.password) : undefined;
  if (!user) {
    await deps.throttle.recordFailure(login);
    return { outcome: 'invalid_credentials' };
  }
  await deps.throttle.reset(login);
  return { outcome: 'signed_in', sub: shopperSubject(user.cust_id, user.login) };
}
