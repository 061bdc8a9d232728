// The customers service's environment, checked at start-up.
import { env, loadConfig } from '@ordering/config';
import { outboxEnv, serviceEnv } from '@ordering/service';
import { z } from 'zod';

export const CUSTOMERS_PORT = 8103;

export const customersEnv = z.object({
  ...serviceEnv({ name: 'customers', port: CUSTOMERS_PORT }),
  ...outboxEnv,
  /** log2 of scrypt's N for password hashes (15: 32 MiB, about 100 ms). */
  PASSWORD_HASH_COST: env.int(15).pipe(z.number().int().min(10).max(20)),
  /** First delay of a login with repeated failed sign-ins from one address; doubles per failure. */
  SIGN_IN_FAILURE_DELAY_MS: env.int(500).pipe(z.number().int().min(0)),
  /**
   * The ceiling of a login's sign-in attempts from every address, per fixed window; above the auth
   * service's own (100 an hour), which refuses first while it works.
   */
  SIGN_IN_LOGIN_MAX_ATTEMPTS: env.int(300).pipe(z.number().int().min(1)),
  SIGN_IN_LOGIN_WINDOW_SECONDS: env.int(3600).pipe(z.number().int().min(1)),
  /** Absolute base URL of the SCIM endpoint as identity providers see it (for `meta.location`). */
  SCIM_BASE_URL: env.url().optional(),
});

export type CustomersConfig = z.infer<typeof customersEnv>;

export function loadCustomersConfig(source: NodeJS.ProcessEnv = process.env): CustomersConfig {
  return loadConfig(customersEnv, source);
}
