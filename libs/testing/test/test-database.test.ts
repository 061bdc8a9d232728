import { randomBytes } from 'node:crypto';
import pg from 'pg';
import type { Migration } from '@ordering/db';
import {
  PG_ADMIN_URL,
  createTestDatabase,
  dropStaleTestDatabases,
  dropTestTemplates,
  templateName,
  type TestDatabase,
} from '../src';

async function adminQuery(sql: string, params: unknown[] = []): Promise<pg.QueryResult> {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  try {
    return await client.query(sql, params);
  } finally {
    await client.end();
  }
}

const databaseExists = async (name: string) =>
  ((await adminQuery('select 1 from pg_database where datname = $1', [name])).rowCount ?? 0) > 0;

/** A throw-away service whose migration counts how often it runs (once per template build). */
function service(label: string) {
  const name = `tdb-${label}-${randomBytes(3).toString('hex')}`;
  const runs = { count: 0 };
  const migrations: Migration[] = [
    {
      name: '20261101000000_create_notes',
      up: async (knex) => {
        runs.count += 1;
        await knex.schema.createTable('notes', (t) => {
          t.increments('id');
          t.text('body').notNullable();
        });
        await knex('notes').insert({ body: 'seeded by the migration' });
      },
      down: async (knex) => {
        await knex.schema.dropTable('notes');
      },
    },
  ];
  return { name, runs, migrations };
}

describe('createTestDatabase', () => {
  const services: string[] = [];
  const databases: TestDatabase[] = [];
  const track = (db: TestDatabase) => (databases.push(db), db);

  afterAll(async () => {
    for (const db of databases) await db.drop();
    for (const s of services) await dropTestTemplates(s);
  });

  it('two databases from one template are migrated, independent, and the template is built once', async () => {
    const svc = service('indep');
    services.push(svc.name);
    const a = track(await createTestDatabase({ service: svc.name, migrations: svc.migrations }));
    const b = track(await createTestDatabase({ service: svc.name, migrations: svc.migrations }));

    expect(svc.runs.count).toBe(1);
    expect(a.template).toBe(b.template);
    expect(a.name).not.toBe(b.name);
    expect(a.url).toContain(a.name);

    await a.knex('notes').insert({ body: 'only in a' });
    expect(await a.knex('notes').orderBy('id').pluck('body')).toEqual([
      'seeded by the migration',
      'only in a',
    ]);
    expect(await b.knex('notes').pluck('body')).toEqual(['seeded by the migration']);
    await b.knex.schema.dropTable('notes');
    expect(await a.knex.schema.hasTable('notes')).toBe(true);

    // A third copy comes from the template, untouched by what a and b did.
    const c = track(await createTestDatabase({ service: svc.name, migrations: svc.migrations }));
    expect(await c.knex('notes').pluck('body')).toEqual(['seeded by the migration']);
    expect(svc.runs.count).toBe(1);
  });

  it('workers racing for a new template build it once and each get their own database', async () => {
    const svc = service('race');
    services.push(svc.name);
    const dbs = await Promise.all(
      Array.from({ length: 4 }, () => createTestDatabase({ service: svc.name, migrations: svc.migrations })),
    );
    dbs.forEach(track);
    expect(svc.runs.count).toBe(1);
    expect(new Set(dbs.map((d) => d.name)).size).toBe(4);
    for (const db of dbs) expect(await db.knex('notes').count({ n: '*' })).toEqual([{ n: '1' }]);
  });

  it('the template is reused by a later run (another process: the migration does not run again)', async () => {
    const svc = service('reuse');
    services.push(svc.name);
    track(await createTestDatabase({ service: svc.name, migrations: svc.migrations }));
    // Equal migration objects with the same code, as a new jest run would load them.
    const sameCode: Migration[] = svc.migrations.map((m) => ({ ...m }));
    const later = track(await createTestDatabase({ service: svc.name, migrations: sameCode }));
    expect(later.template).toBe(templateName(svc.name, svc.migrations));
    expect(svc.runs.count).toBe(1);
  });

  it('changed migrations get a new template, and the outdated one is dropped', async () => {
    const svc = service('change');
    services.push(svc.name);
    const first = track(await createTestDatabase({ service: svc.name, migrations: svc.migrations }));
    const extended: Migration[] = [
      ...svc.migrations,
      {
        name: '20261102000000_add_author',
        up: async (knex) => knex.schema.alterTable('notes', (t) => t.text('author')),
        down: async (knex) => knex.schema.alterTable('notes', (t) => t.dropColumn('author')),
      },
    ];
    const second = track(await createTestDatabase({ service: svc.name, migrations: extended }));
    expect(second.template).toBe(templateName(svc.name, extended));
    expect(second.template).not.toBe(first.template);
    expect(await second.knex.schema.hasColumn('notes', 'author')).toBe(true);
    expect(await databaseExists(first.template)).toBe(false);
    // Databases already copied from the old template are unaffected.
    expect(await first.knex('notes').count({ n: '*' })).toEqual([{ n: '1' }]);
  });

  it('a half-built template (a crashed build) is rebuilt', async () => {
    const svc = service('crash');
    services.push(svc.name);
    const template = templateName(svc.name, svc.migrations);
    await adminQuery(`create database "${template}"`); // exists, but never marked as a template
    const db = track(await createTestDatabase({ service: svc.name, migrations: svc.migrations }));
    expect(svc.runs.count).toBe(1);
    expect(await db.knex.schema.hasTable('notes')).toBe(true);
  });

  it('drop() removes the database even with other connections open, and may be called twice', async () => {
    const svc = service('drop');
    services.push(svc.name);
    const db = await createTestDatabase({ service: svc.name, migrations: svc.migrations });
    const other = new pg.Client({ connectionString: db.url });
    await other.connect();
    other.on('error', () => {}); // it is terminated by the forced drop
    await db.drop();
    await db.drop();
    expect(await databaseExists(db.name)).toBe(false);
    await other.end().catch(() => {});
  });
});

describe('dropStaleTestDatabases', () => {
  it('drops test databases older than an hour and keeps recent ones', async () => {
    const stamp = (ms: number) => Math.floor(ms / 1000);
    const rand = () => randomBytes(4).toString('hex');
    const old = `test_staleprobe_${stamp(Date.now() - 2 * 3600_000)}_${rand()}`;
    const recent = `test_staleprobe_${stamp(Date.now() - 60_000)}_${rand()}`;
    const unrelated = `test_not_ours_${rand()}`;
    for (const name of [old, recent, unrelated]) await adminQuery(`create database "${name}"`);
    try {
      const dropped = await dropStaleTestDatabases();
      expect(dropped).toContain(old);
      expect(dropped).not.toContain(recent);
      expect(await databaseExists(old)).toBe(false);
      expect(await databaseExists(recent)).toBe(true);
      expect(await databaseExists(unrelated)).toBe(true);
    } finally {
      for (const name of [old, recent, unrelated])
        await adminQuery(`drop database if exists "${name}" with (force)`);
    }
  });
});
