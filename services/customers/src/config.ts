// The customers service's environment, checked at start-up.
import { commonEnv, env, loadConfig } from '@ordering/config';
import { databaseEnv } from '@ordering/db';
import { z } from 'zod';

export const CUSTOMERS_PORT = 8103;

export const customersEnv = z.object({
  ...commonEnv,
  SERVICE_NAME: env.string('customers'),
  PORT: env.port(CUSTOMERS_PORT),
  HOST: env.string('0.0.0.0'),
  ...databaseEnv,
  KAFKA_BROKERS: env.list(),
  /** Whether this replica publishes the outbox (at most one relay publishes at a time anyway). */
  OUTBOX_RELAY_ENABLED: env.bool(true),
  INTERNAL_IDENTITY_SECRET: env.string(),
  /** log2 of scrypt's N for password hashes (15: 32 MiB, about 100 ms). */
  PASSWORD_HASH_COST: env.int(15).pipe(z.number().int().min(10).max(20)),
  /** First delay of a login with repeated failed sign-ins; doubles per failure. */
  SIGN_IN_FAILURE_DELAY_MS: env.int(500).pipe(z.number().int().min(0)),
  /** Absolute base URL of the SCIM endpoint as identity providers see it (for `meta.location`). */
  SCIM_BASE_URL: env.url().optional(),
});

export type CustomersConfig = z.infer<typeof customersEnv>;

export function loadCustomersConfig(source: NodeJS.ProcessEnv = process.env): CustomersConfig {
  return loadConfig(customersEnv, source);
}
