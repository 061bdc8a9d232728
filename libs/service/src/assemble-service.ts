// What every service is made of, assembled once: its logger, its own database (created and
// migrated), a Kafka client with a readiness check, the outbox relay, the HTTP entry point and the
// life cycle. A service's `service.ts` names only its own parts:
//
//   export const buildCatalogService = (config: CatalogConfig, options: ServiceOptions = {}) =>
//     assembleService(config, { ...options, migrations }, ({ knex, kafka, logger }) => {
//       const useCases = createUseCases(new CatalogRepository(knex));
//       return { outbox: true, routes: (app) => mountRoutes(app, useCases), parts: { useCases } };
//     });
//
// `serviceMain(loadConfig, build)` (of @ordering/http) runs the result as the production process;
// `startService(build(...))` runs it inside a test or an end-to-end harness.
import type { Express } from 'express';
import type { Kafka } from 'kafkajs';
import type { Knex } from 'knex';
import { type Migration, databaseReadinessCheck, openServiceDatabase } from '@ordering/db';
import {
  type EntryPoint,
  type Logger,
  type ReadinessCheck,
  createApp,
  createLogger,
  httpEntryPoint,
  startInProcess,
} from '@ordering/http';
import { KafkaHealth, OutboxRelay, createKafka } from '@ordering/messaging';
import type { ServiceConfig } from './service-env';

/** What the assembly provides to the service's own parts. */
export interface Foundation<C extends ServiceConfig> {
  config: C;
  logger: Logger;
  knex: Knex;
  kafka: Kafka;
}

/** The parts that are the service's own. */
export interface OwnParts<P extends object> {
  /** Mounts the service's routes (health routes, 404 and the error middleware come with the app). */
  routes(app: Express): void;
  /** Entry points beside HTTP (consumers, jobs), started in order before HTTP, stopped after it. */
  entryPoints?: EntryPoint[];
  /** Readiness checks beside the database and Kafka. */
  readiness?: ReadinessCheck[];
  /**
   * Whether the service needs Kafka to do its work: `required` makes /readyz fail without it (a
   * consumer); `degraded` (default) keeps it ready, since the events it writes wait in the outbox.
   */
  kafka?: 'required' | 'degraded';
  /** The service publishes through its outbox: the relay runs unless OUTBOX_RELAY_ENABLED=false. */
  outbox?: boolean;
  /**
   * The JSON body limit of every route ('1mb' by default); `false` when the service mounts its own
   * parsers (a larger limit for one operator route, say: jsonBody of @ordering/http).
   */
  bodyLimit?: string | false;
  /** Closes what the service's parts opened themselves (after every entry point stopped). */
  close?(): Promise<void>;
  /** Exposed on the assembled service, for its tests and harnesses. */
  parts: P;
}

export interface ServiceOptions {
  logger?: Logger;
}

/** What a service states about itself besides its parts. */
export interface ServiceDefinition {
  migrations: Migration[];
  /** Settings of every database session (see CreateKnexOptions.sessionSettings). */
  sessionSettings?: Record<string, string>;
}

export interface AssembledService<P extends object> {
  /** SERVICE_NAME, as in logs. */
  name: string;
  entryPoints: EntryPoint[];
  knex: Knex;
  kafka: Kafka;
  logger: Logger;
  parts: P;
  /** The HTTP address once started. */
  url(): string;
  /** Closes what the entry points do not own (database pool, health clients, the parts' own). */
  close(): Promise<void>;
}

function kafkaReadiness(health: KafkaHealth, mode: 'required' | 'degraded'): ReadinessCheck {
  if (mode === 'required') return health;
  return {
    name: 'kafka',
    check: () =>
      health.check().then(
        () => undefined,
        (err: unknown) =>
          `degraded: events wait in the outbox (${err instanceof Error ? err.message : String(err)})`,
      ),
  };
}

export async function assembleService<C extends ServiceConfig, P extends object>(
  config: C,
  options: ServiceOptions & ServiceDefinition,
  compose: (foundation: Foundation<C>) => OwnParts<P> | Promise<OwnParts<P>>,
): Promise<AssembledService<P>> {
  const logger = options.logger ?? createLogger({ service: config.SERVICE_NAME, level: config.LOG_LEVEL });
  const knex = await openServiceDatabase({
    url: config.DATABASE_URL,
    service: config.SERVICE_NAME,
    pool: { max: config.DATABASE_POOL_MAX },
    logger,
    migrations: options.migrations,
    ...(options.sessionSettings ? { sessionSettings: options.sessionSettings } : {}),
  });
  const kafka = createKafka({ clientId: config.SERVICE_NAME, brokers: config.KAFKA_BROKERS, logger });
  const kafkaHealth = new KafkaHealth(kafka, { timeoutMs: 1000 });
  const closeShared = async () => {
    await kafkaHealth.stop();
    await knex.destroy();
  };

  let own: OwnParts<P>;
  try {
    own = await compose({ config, logger, knex, kafka });
  } catch (err) {
    await closeShared();
    throw err;
  }

  const app = createApp({
    service: config.SERVICE_NAME,
    logger,
    readiness: [
      databaseReadinessCheck(knex),
      kafkaReadiness(kafkaHealth, own.kafka ?? 'degraded'),
      ...(own.readiness ?? []),
    ],
    routes: own.routes,
    ...(own.bodyLimit === undefined ? {} : { bodyLimit: own.bodyLimit }),
  });
  const http = httpEntryPoint(app, { port: config.PORT, host: config.HOST, logger });
  // OUTBOX_RELAY_ENABLED=false runs a replica that serves requests but leaves publishing to another
  // one (and lets crash-safety tests commit events that nothing has published yet).
  const relay =
    own.outbox && config.OUTBOX_RELAY_ENABLED !== false
      ? [
          new OutboxRelay({
            knex,
            kafka,
            logger,
            ...(config.OUTBOX_RELAY_LINGER_MS === undefined
              ? {}
              : { lingerMs: config.OUTBOX_RELAY_LINGER_MS }),
          }),
        ]
      : [];

  return {
    name: config.SERVICE_NAME,
    entryPoints: [...relay, ...(own.entryPoints ?? []), http],
    knex,
    kafka,
    logger,
    parts: own.parts,
    url: () => http.url(),
    close: async () => {
      try {
        await own.close?.();
      } finally {
        await closeShared();
      }
    },
  };
}

export type RunningService<S> = S & {
  /** Stops every entry point in reverse order, then closes the shared resources. */
  stop(): Promise<void>;
};

/** Starts an assembled service in this process (tests, end-to-end harnesses). */
export async function startService<P extends object, S extends AssembledService<P>>(
  built: S | Promise<S>,
): Promise<RunningService<S>> {
  const service = await built;
  const running = await startInProcess(service, { service: service.name, logger: service.logger });
  return Object.assign(service, { stop: running.stop });
}
