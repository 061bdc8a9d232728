// The knex instance of a service: PostgreSQL through `pg`, named in pg_stat_activity after the
// service, with a pool that holds no connection while idle, and a span per query of a traced request.
import type { ConnectionOptions } from 'node:tls';
import knex, { type Knex } from 'knex';
import { traceKnexQueries } from '@ordering/telemetry';
import { databaseTlsFromEnv } from './database-tls';

/** Where knex's own warnings go (a pino logger fits); default: knex prints them on the console. */
export interface DbLogger {
  warn(message: string): void;
  error(message: string): void;
  debug(message: string): void;
}

const text = (m: unknown) => (typeof m === 'string' ? m : JSON.stringify(m));

export interface CreateKnexOptions {
  url: string;
  pool?: { min?: number; max?: number };
  /** Shown as application_name in pg_stat_activity. */
  service?: string;
  /** How long a query waits for a free pooled connection; default 10 s. */
  acquireConnectionTimeoutMs?: number;
  logger?: DbLogger;
  /** TLS to the server; default from DATABASE_SSL_MODE / DATABASE_SSL_CA_FILE (database-tls.ts). */
  ssl?: false | ConnectionOptions;
  /**
   * Settings of every session of the pool, sent at connection start-up (`-c name=value`), e.g. a
   * pg_trgm similarity threshold the service's queries rely on.
   */
  sessionSettings?: Record<string, string>;
}

/** libpq's `options` startup parameter for these settings (spaces and backslashes escaped). */
function startupOptions(settings: Record<string, string>): string {
  return Object.entries(settings)
    .map(([name, value]) => `-c ${name}=${value.replace(/[\\ ]/g, (c) => `\\${c}`)}`)
    .join(' ');
}

export function createKnex(options: CreateKnexOptions): Knex {
  const db = knex({
    client: 'pg',
    connection: {
      connectionString: options.url,
      ssl: options.ssl ?? databaseTlsFromEnv(),
      ...(options.service ? { application_name: options.service } : {}),
      ...(options.sessionSettings ? { options: startupOptions(options.sessionSettings) } : {}),
    },
    pool: { min: options.pool?.min ?? 0, max: options.pool?.max ?? 10 },
    acquireConnectionTimeout: options.acquireConnectionTimeoutMs ?? 10_000,
    ...(options.logger ? { log: knexLog(options.logger) } : {}),
  });
  // A span per query inside a traced request or message (libs/telemetry db-tracing.ts).
  traceKnexQueries(db, { dbName: databaseNameOf(options.url) });
  return db;
}

function databaseNameOf(url: string): string | undefined {
  try {
    return decodeURIComponent(new URL(url).pathname.slice(1)) || undefined;
  } catch {
    return undefined;
  }
}

function knexLog(logger: DbLogger): Knex.Logger {
  return {
    warn: (m) => logger.warn(`knex: ${text(m)}`),
    error: (m) => logger.error(`knex: ${text(m)}`),
    deprecate: (method, alternative) => logger.warn(`knex: ${method} is deprecated, use ${alternative}`),
    debug: (m) => logger.debug(`knex: ${text(m)}`),
  };
}

/** A `/readyz` check: the database answers a query. */
export function databaseReadinessCheck(
  db: Knex,
  name = 'postgres',
): { name: string; check(): Promise<void> } {
  return {
    name,
    check: async () => {
      await db.raw('select 1');
    },
  };
}
