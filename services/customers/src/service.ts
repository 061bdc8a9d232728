// The customers service assembled: database (created and migrated), use cases, HTTP app and the
// outbox relay. `startCustomersService` runs it in-process (tests, e2e); start.ts runs the same
// entry points under runService (production).
import type { Knex } from 'knex';
import { databaseReadinessCheck, openServiceDatabase } from '@ordering/db';
import {
  type EntryPoint,
  type Logger,
  createApp,
  createLogger,
  httpEntryPoint,
  startInProcess,
} from '@ordering/http';
import { KafkaHealth, OutboxRelay, createKafka } from '@ordering/messaging';
import { migrations } from '../migrations';
import type { CustomersConfig } from './config';
import { CustomersDatabase } from './data-access/customers-database';
import { IdempotencyStore } from './data-access/idempotency-store';
import { type Clock, systemClock } from './domain/clock';
import type { CredentialPolicy } from './domain/credentials-use-case';
import { type UseCases, createUseCases } from './domain/use-cases';
import { mountRoutes } from './entry-points/http/routes';
import { maintenanceJob } from './entry-points/jobs/maintenance-job';

export interface CustomersServiceOptions {
  logger?: Logger;
  clock?: Clock;
  credentialPolicy?: Partial<CredentialPolicy>;
}

export interface CustomersService {
  entryPoints: EntryPoint[];
  knex: Knex;
  useCases: UseCases;
  /** The HTTP address once started. */
  url(): string;
  /** Closes what the entry points do not own (database pool, health clients). */
  close(): Promise<void>;
}

export async function buildCustomersService(
  config: CustomersConfig,
  options: CustomersServiceOptions = {},
): Promise<CustomersService> {
  const logger = options.logger ?? createLogger({ service: config.SERVICE_NAME, level: config.LOG_LEVEL });
  const clock = options.clock ?? systemClock;

  const knex = await openServiceDatabase({
    url: config.DATABASE_URL,
    service: config.SERVICE_NAME,
    pool: { max: config.DATABASE_POOL_MAX },
    logger,
    migrations,
  });

  const db = new CustomersDatabase(knex);
  const useCases = createUseCases(db, {
    clock,
    passwordHashCost: config.PASSWORD_HASH_COST,
    credentialPolicy: { baseDelayMs: config.SIGN_IN_FAILURE_DELAY_MS, ...options.credentialPolicy },
  });
  const idempotency = new IdempotencyStore(knex, { now: () => clock.now() });

  const kafka = createKafka({ clientId: config.SERVICE_NAME, brokers: config.KAFKA_BROKERS, logger });
  const kafkaHealth = new KafkaHealth(kafka, { timeoutMs: 1000 });
  // Without Kafka the service still works (sign-in, reads, writes): events wait in the outbox.
  const kafkaReadiness = {
    name: 'kafka',
    check: () =>
      kafkaHealth.check().then(
        () => undefined,
        (err: unknown) =>
          `degraded: events wait in the outbox (${err instanceof Error ? err.message : String(err)})`,
      ),
  };
  const app = createApp({
    service: config.SERVICE_NAME,
    logger,
    readiness: [databaseReadinessCheck(knex), kafkaReadiness],
    routes: (a) =>
      mountRoutes(a, {
        useCases,
        idempotency,
        identitySecret: config.INTERNAL_IDENTITY_SECRET,
        ...(config.SCIM_BASE_URL ? { scimBaseUrl: config.SCIM_BASE_URL } : {}),
      }),
  });
  const http = httpEntryPoint(app, { port: config.PORT, host: config.HOST, logger });
  const relay = new OutboxRelay({ knex, kafka, logger });

  return {
    // OUTBOX_RELAY_ENABLED=false runs a replica that serves requests but leaves publishing to
    // another one (and lets the crash-safety test commit events that nothing has published yet).
    entryPoints: [
      ...(config.OUTBOX_RELAY_ENABLED ? [relay] : []),
      maintenanceJob({ idempotency, credentials: useCases.credentials }, logger),
      http,
    ],
    knex,
    useCases,
    url: () => http.url(),
    close: async () => {
      await kafkaHealth.stop();
      await knex.destroy();
    },
  };
}

/** Builds, migrates and starts the service; `stop()` stops every entry point and closes the pool. */
export async function startCustomersService(
  config: CustomersConfig,
  options: CustomersServiceOptions = {},
): Promise<{ url: string; stop(): Promise<void>; knex: Knex; useCases: UseCases }> {
  const logger = options.logger ?? createLogger({ service: config.SERVICE_NAME, level: config.LOG_LEVEL });
  const service = await buildCustomersService(config, { ...options, logger });
  const running = await startInProcess(service, { service: config.SERVICE_NAME, logger });
  return { url: service.url(), stop: running.stop, knex: service.knex, useCases: service.useCases };
}
