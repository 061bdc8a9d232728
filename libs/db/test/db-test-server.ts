// The test server and unique database names (other suites run at the same time).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { quoteIdentifier, withDatabase } from '../src';

export const ADMIN_URL = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export function uniqueDatabaseUrl(label: string): string {
  return withDatabase(ADMIN_URL, `libdb_${label}_${randomBytes(5).toString('hex')}`);
}

export async function adminQuery<T extends pg.QueryResultRow = pg.QueryResultRow>(
  sql: string,
  params: unknown[] = [],
): Promise<pg.QueryResult<T>> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await client.query<T>(sql, params);
  } finally {
    await client.end();
  }
}

export async function databaseExists(name: string): Promise<boolean> {
  return ((await adminQuery('select 1 from pg_database where datname = $1', [name])).rowCount ?? 0) > 0;
}

export async function dropDatabase(name: string): Promise<void> {
  await adminQuery(`drop database if exists ${quoteIdentifier(name)} with (force)`);
}

/** Collects knex's own log lines instead of printing them. */
export function quietLogger(lines: string[] = []) {
  const keep = (m: string) => void lines.push(m);
  return { warn: keep, error: keep, debug: keep };
}
