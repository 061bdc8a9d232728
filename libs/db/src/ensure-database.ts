// Each service owns one database and creates it at start-up when it is missing. Two replicas
// starting at once may both try: the loser's "already exists" is success. A local platform started
// afresh (`./dev up --fresh`) drops its databases first.
import type { ConnectionOptions } from 'node:tls';
import pg from 'pg';
import { databaseTlsFromEnv } from './database-tls';
import { databaseNameOf, quoteIdentifier, serverOf, withDatabase } from './database-url';

const DUPLICATE_DATABASE = '42P04';
const UNIQUE_VIOLATION = '23505'; // pg_database's unique index, when two CREATEs race

export class DatabaseUnreachableError extends Error {
  constructor(
    readonly server: string,
    readonly database: string,
    cause: unknown,
  ) {
    const reason =
      cause instanceof Error ? cause.message || (cause as { code?: string }).code : String(cause);
    super(`PostgreSQL at ${server} is not reachable (to ensure database "${database}" exists): ${reason}`, {
      cause,
    });
    this.name = 'DatabaseUnreachableError';
  }
}

export interface EnsureDatabaseOptions {
  /** Database to connect to for CREATE DATABASE; default `postgres`. */
  maintenanceDatabase?: string;
  connectTimeoutMs?: number;
  /** TLS to the server; default from DATABASE_SSL_MODE / DATABASE_SSL_CA_FILE (database-tls.ts). */
  ssl?: false | ConnectionOptions;
}

/** A connected client of the server of `url`, on its maintenance database. */
async function maintenanceClient(url: string, options: EnsureDatabaseOptions): Promise<pg.Client> {
  const client = new pg.Client({
    connectionString: withDatabase(url, options.maintenanceDatabase ?? 'postgres'),
    connectionTimeoutMillis: options.connectTimeoutMs ?? 5000,
    application_name: 'ensure-database',
    ssl: options.ssl ?? databaseTlsFromEnv(),
  });
  try {
    await client.connect();
  } catch (err) {
    await client.end().catch(() => {});
    throw new DatabaseUnreachableError(serverOf(url), databaseNameOf(url), err);
  }
  return client;
}

/** Creates the database named by `url` unless it exists; true when this call created it. */
export async function ensureDatabase(url: string, options: EnsureDatabaseOptions = {}): Promise<boolean> {
  const database = databaseNameOf(url);
  const quoted = quoteIdentifier(database);
  const client = await maintenanceClient(url, options);
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (found.rowCount) return false;
    await client.query(`create database ${quoted}`);
    return true;
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === DUPLICATE_DATABASE || code === UNIQUE_VIOLATION) return false;
    throw err;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * Drops the database named by `url` when it exists, ending its sessions first (a local platform
 * started afresh; never a production path). True when there was one to drop.
 */
export async function dropDatabase(url: string, options: EnsureDatabaseOptions = {}): Promise<boolean> {
  const database = databaseNameOf(url);
  const client = await maintenanceClient(url, options);
  try {
    const found = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (!found.rowCount) return false;
    await client.query(`drop database if exists ${quoteIdentifier(database)} with (force)`);
    return true;
  } finally {
    await client.end().catch(() => {});
  }
}
