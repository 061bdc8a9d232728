import {
  DatabaseUnreachableError,
  createKnex,
  databaseNameOf,
  dropDatabase as dropServiceDatabase,
  ensureDatabase,
  withDatabase,
} from '../src';
import { ADMIN_URL, databaseExists, dropDatabase, uniqueDatabaseUrl } from './db-test-server';

describe('ensureDatabase', () => {
  const created: string[] = [];
  afterAll(async () => {
    for (const name of created) await dropDatabase(name);
  });

  it('creates a missing database, and a second call leaves it (and its data) alone', async () => {
    const url = uniqueDatabaseUrl('ensure');
    const name = databaseNameOf(url);
    created.push(name);
    expect(await databaseExists(name)).toBe(false);

    expect(await ensureDatabase(url)).toBe(true);
    expect(await databaseExists(name)).toBe(true);

    const db = createKnex({ url, service: 'ensure-test' });
    try {
      await db.schema.createTable('marker', (t) => t.text('v'));
      await db('marker').insert({ v: 'kept' });
      expect(await ensureDatabase(url)).toBe(false);
      expect(await db('marker').pluck('v')).toEqual(['kept']);
    } finally {
      await db.destroy();
    }
  });

  it('is safe when several callers create the same database at once', async () => {
    const url = uniqueDatabaseUrl('race');
    created.push(databaseNameOf(url));
    await Promise.all(Array.from({ length: 6 }, () => ensureDatabase(url)));
    expect(await databaseExists(databaseNameOf(url))).toBe(true);
  });

  it('handles a name that needs quoting', async () => {
    const url = withDatabase(ADMIN_URL, `libdb Odd-"Name" ${Date.now()}`);
    created.push(databaseNameOf(url));
    await ensureDatabase(url);
    expect(await databaseExists(databaseNameOf(url))).toBe(true);
  });

  it('fails clearly, naming host and database, when the server is not reachable', async () => {
    const url = 'postgres://svc:s3cret@127.0.0.1:1/orders';
    const error = await ensureDatabase(url, { connectTimeoutMs: 2000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DatabaseUnreachableError);
    expect((error as Error).message).toMatch(/127\.0\.0\.1:1.*"orders"/);
    expect((error as Error).message).not.toContain('s3cret');
  });

  it('refuses a name PostgreSQL would silently truncate', async () => {
    await expect(ensureDatabase(withDatabase(ADMIN_URL, 'x'.repeat(64)))).rejects.toThrow('longer than 63');
  });
});

describe('dropDatabase (a local platform started afresh)', () => {
  it('drops a database whose sessions are still open, and then ensureDatabase makes an empty one', async () => {
    const url = uniqueDatabaseUrl('fresh');
    const name = databaseNameOf(url);
    await ensureDatabase(url);
    const db = createKnex({ url, service: 'fresh-test' });
    try {
      await db.schema.createTable('marker', (t) => t.text('v'));
      await db('marker').insert({ v: 'old run' });

      expect(await dropServiceDatabase(url)).toBe(true);
      expect(await databaseExists(name)).toBe(false);
    } finally {
      await db.destroy();
    }
    try {
      expect(await ensureDatabase(url)).toBe(true);
      const fresh = createKnex({ url, service: 'fresh-test' });
      try {
        expect(await fresh.schema.hasTable('marker')).toBe(false);
      } finally {
        await fresh.destroy();
      }
    } finally {
      await dropDatabase(name);
    }
  });

  it('answers false when there is no such database', async () => {
    expect(await dropServiceDatabase(uniqueDatabaseUrl('absent'))).toBe(false);
  });
});
