// The customers service: its own parts (use cases, idempotency store, routes, maintenance job) on
// the shared assembly of @ordering/service (database, Kafka, readiness, outbox relay, HTTP, life
// cycle). `startCustomersService` runs it in-process (tests, e2e); start.ts runs it as production.
import { periodicJob } from '@ordering/http';
import {
  type AssembledService,
  type Clock,
  type ServiceOptions,
  assembleService,
  startService,
  systemClock,
} from '@ordering/service';
import { migrations } from '../migrations';
import type { CustomersConfig } from './config';
import { CustomersDatabase } from './data-access/customers-database';
import { IdempotencyStore } from '@ordering/idempotency';
import type { CredentialPolicy } from './domain/credentials-use-case';
import { type UseCases, createUseCases } from './domain/use-cases';
import { mountRoutes } from './entry-points/http/routes';

export interface CustomersServiceOptions extends ServiceOptions {
  clock?: Clock;
  credentialPolicy?: Partial<CredentialPolicy>;
}

export type CustomersService = AssembledService<{ useCases: UseCases }>;

export function buildCustomersService(
  config: CustomersConfig,
  options: CustomersServiceOptions = {},
): Promise<CustomersService> {
  const clock = options.clock ?? systemClock;
  return assembleService(config, { ...options, migrations }, ({ knex, logger }) => {
    const useCases = createUseCases(new CustomersDatabase(knex), {
      clock,
      passwordHashCost: config.PASSWORD_HASH_COST,
      credentialPolicy: {
        baseDelayMs: config.SIGN_IN_FAILURE_DELAY_MS,
        loginMaxAttempts: config.SIGN_IN_LOGIN_MAX_ATTEMPTS,
        loginWindowMs: config.SIGN_IN_LOGIN_WINDOW_SECONDS * 1000,
        ...options.credentialPolicy,
      },
    });
    const idempotency = new IdempotencyStore(knex, { now: () => clock.now() });
    return {
      // Without Kafka the service still works (sign-in, reads, writes): events wait in the outbox.
      outbox: true,
      routes: (app) =>
        mountRoutes(app, {
          useCases,
          idempotency,
          identitySecret: config.INTERNAL_IDENTITY_SECRET,
          ...(config.SCIM_BASE_URL ? { scimBaseUrl: config.SCIM_BASE_URL } : {}),
        }),
      entryPoints: [
        // Idempotency keys past their 24 h window and sign-in failure counts past theirs.
        periodicJob(
          'maintenance',
          async () => ({
            idempotency_keys: await idempotency.purgeExpired(),
            login_failures: await useCases.credentials.purgeStaleFailures(),
          }),
          logger,
        ),
      ],
      parts: { useCases },
    };
  });
}

/** Builds, migrates and starts the service in this process; `stop()` stops it and closes the pool. */
export const startCustomersService = (config: CustomersConfig, options: CustomersServiceOptions = {}) =>
  startService(buildCustomersService(config, options));
