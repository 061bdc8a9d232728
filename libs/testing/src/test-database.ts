// A fresh, migrated database per test file or worker, in milliseconds: `CREATE DATABASE <unique>
// TEMPLATE <template>`, where the template is built once per (service, migration set) and reused
// across runs. An advisory lock per template makes concurrent jest workers and runs take turns:
// one builds, the others wait and then copy.
import { createHash, randomBytes } from 'node:crypto';
import pg from 'pg';
import {
  type DbLogger,
  type Knex,
  type Migration,
  createKnex,
  migrateLatest,
  quoteIdentifier,
  withDatabase,
} from '@ordering/db';
import { PG_ADMIN_URL } from './infrastructure';

export interface TestDatabase {
  /** Connection URL of the new database. */
  url: string;
  /** Its name (unique across concurrent runs). */
  name: string;
  /** The template it was copied from. */
  template: string;
  knex: Knex;
  /** Destroys the knex pool and drops the database, even if other connections remain open. */
  drop(): Promise<void>;
}

export interface CreateTestDatabaseOptions {
  service: string;
  migrations: Migration[];
  /** A superuser-ish URL of the server (CREATE DATABASE); default TEST_DATABASE_ADMIN_URL or local postgres. */
  adminUrl?: string;
  /** Pool size of the returned knex; default 5. */
  poolMax?: number;
  logger?: DbLogger;
}

const TEST_DB_PATTERN = /^test_[a-z0-9_]+_(\d{10})_[0-9a-f]{8}$/;
const TEMPLATE_PATTERN = /^tpl_([a-z0-9_]+)_([0-9a-f]{16})$/;

/** `orders-service` -> `orders_service`, at most 20 characters (names stay under 63 bytes). */
function slug(service: string): string {
  const s = service
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 20);
  return s || 'svc';
}

/** Same service and same migration code: same hash, same template. Code changes make a new one. */
export function migrationSetHash(service: string, migrations: Migration[]): string {
  const h = createHash('sha256').update(slug(service));
  for (const m of migrations) {
    h.update('\0').update(m.name).update('\0').update(m.up.toString()).update('\0').update(m.down.toString());
    h.update(m.transaction === false ? '\0notx' : '\0tx');
  }
  return h.digest('hex').slice(0, 16);
}

export function templateName(service: string, migrations: Migration[]): string {
  return `tpl_${slug(service)}_${migrationSetHash(service, migrations)}`;
}

function testDatabaseName(service: string): string {
  return `test_${slug(service)}_${Math.floor(Date.now() / 1000)}_${randomBytes(4).toString('hex')}`;
}

/** Advisory lock key of a template: 60 bits of its hash. */
function lockKey(hash: string): string {
  return BigInt(`0x${hash.slice(0, 15)}`).toString();
}

async function withAdmin<T>(adminUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: adminUrl, application_name: 'test-database' });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

async function dropTemplate(admin: pg.Client, name: string): Promise<void> {
  const q = quoteIdentifier(name);
  const exists = await admin.query('select 1 from pg_database where datname = $1', [name]);
  if (!exists.rowCount) return;
  await admin.query(`alter database ${q} with is_template false allow_connections true`);
  await admin.query(`drop database if exists ${q} with (force)`);
}

async function buildTemplate(
  admin: pg.Client,
  options: CreateTestDatabaseOptions & { adminUrl: string },
  template: string,
): Promise<void> {
  // A database of this name that is not marked as a template is a build that died half-way.
  await dropTemplate(admin, template);
  await admin.query(`create database ${quoteIdentifier(template)}`);
  const knex = createKnex({
    url: withDatabase(options.adminUrl, template),
    service: `${options.service}-template`,
    pool: { max: 1 },
    ...(options.logger ? { logger: options.logger } : {}),
  });
  try {
    await migrateLatest(knex, options.migrations);
  } finally {
    await knex.destroy();
  }
  // Marked complete only now; no one may connect to it (a connection would block copies).
  await admin.query(
    `alter database ${quoteIdentifier(template)} with is_template true allow_connections false`,
  );

  // Templates of this service's older migration sets, unless someone is using one right now.
  const others = await admin.query<{ datname: string }>(
    'select datname from pg_database where datname like $1 and datname <> $2',
    [`tpl\\_${slug(options.service).replace(/_/g, '\\_')}\\_%`, template],
  );
  for (const { datname } of others.rows) {
    const match = TEMPLATE_PATTERN.exec(datname);
    if (!match || match[1] !== slug(options.service)) continue;
    const key = lockKey(match[2] as string);
    const locked = await admin.query<{ ok: boolean }>('select pg_try_advisory_lock($1::bigint) as ok', [key]);
    if (!locked.rows[0]?.ok) continue;
    try {
      await dropTemplate(admin, datname);
    } finally {
      await admin.query('select pg_advisory_unlock($1::bigint)', [key]);
    }
  }
}

export async function createTestDatabase(options: CreateTestDatabaseOptions): Promise<TestDatabase> {
  const adminUrl = options.adminUrl ?? PG_ADMIN_URL;
  const hash = migrationSetHash(options.service, options.migrations);
  const template = `tpl_${slug(options.service)}_${hash}`;
  const name = testDatabaseName(options.service);

  await withAdmin(adminUrl, async (admin) => {
    const key = lockKey(hash);
    await admin.query('select pg_advisory_lock($1::bigint)', [key]);
    try {
      const found = await admin.query<{ datistemplate: boolean }>(
        'select datistemplate from pg_database where datname = $1',
        [template],
      );
      if (!found.rows[0]?.datistemplate) await buildTemplate(admin, { ...options, adminUrl }, template);
      await admin.query(`create database ${quoteIdentifier(name)} template ${quoteIdentifier(template)}`);
    } finally {
      await admin.query('select pg_advisory_unlock($1::bigint)', [key]);
    }
  });

  const url = withDatabase(adminUrl, name);
  const knex = createKnex({
    url,
    service: options.service,
    pool: { max: options.poolMax ?? 5 },
    ...(options.logger ? { logger: options.logger } : {}),
  });
  return { url, name, template, knex, drop: dropOnce(adminUrl, name, knex) };
}

/** Closes the pool and drops the database, once however often it is called. */
function dropOnce(adminUrl: string, name: string, knex: Knex): () => Promise<void> {
  let dropped: Promise<void> | undefined;
  return () => {
    dropped ??= (async () => {
      await knex.destroy();
      await withAdmin(adminUrl, (admin) =>
        admin.query(`drop database if exists ${quoteIdentifier(name)} with (force)`),
      );
    })();
    return dropped;
  };
}

export interface DropStaleOptions {
  /** Age past which a test database is a leftover; default one hour. */
  olderThanMs?: number;
  adminUrl?: string;
  now?: number;
}

/** Drops test databases (named by createTestDatabase) older than an hour; returns their names. */
export async function dropStaleTestDatabases(options: DropStaleOptions = {}): Promise<string[]> {
  const olderThanMs = options.olderThanMs ?? 60 * 60 * 1000;
  const now = options.now ?? Date.now();
  return withAdmin(options.adminUrl ?? PG_ADMIN_URL, async (admin) => {
    const rows = await admin.query<{ datname: string }>(
      `select datname from pg_database where datname like 'test\\_%'`,
    );
    const stale = rows.rows
      .map((r) => r.datname)
      .filter((name) => {
        const match = TEST_DB_PATTERN.exec(name);
        return match !== null && now - Number(match[1]) * 1000 > olderThanMs;
      });
    for (const name of stale) {
      await admin.query(`drop database if exists ${quoteIdentifier(name)} with (force)`);
    }
    return stale;
  });
}

/** Drops every template of a service (e.g. after a test that made throw-away services). */
export async function dropTestTemplates(service: string, adminUrl = PG_ADMIN_URL): Promise<string[]> {
  return withAdmin(adminUrl, async (admin) => {
    const rows = await admin.query<{ datname: string }>(
      `select datname from pg_database where datname like 'tpl\\_%'`,
    );
    const mine = rows.rows
      .map((r) => r.datname)
      .filter((n) => TEMPLATE_PATTERN.exec(n)?.[1] === slug(service));
    for (const name of mine) await dropTemplate(admin, name);
    return mine;
  });
}

export type EmptyTestDatabase = Omit<TestDatabase, 'template'>;

/**
 * A new database with no schema at all (for tests of the migrations themselves: up on empty, down
 * to empty). Named like the migrated ones, so stale copies are dropped the same way.
 */
export async function createEmptyTestDatabase(options: {
  service: string;
  adminUrl?: string;
  poolMax?: number;
}): Promise<EmptyTestDatabase> {
  const adminUrl = options.adminUrl ?? PG_ADMIN_URL;
  const name = testDatabaseName(options.service);
  await withAdmin(adminUrl, (admin) => admin.query(`create database ${quoteIdentifier(name)}`));
  const url = withDatabase(adminUrl, name);
  const knex = createKnex({ url, service: options.service, pool: { max: options.poolMax ?? 2 } });
  return { url, name, knex, drop: dropOnce(adminUrl, name, knex) };
}
