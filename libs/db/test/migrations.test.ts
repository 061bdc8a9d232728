import type { Knex } from 'knex';
import {
  type Migration,
  appliedMigrations,
  createKnex,
  databaseNameOf,
  databaseReadinessCheck,
  ensureDatabase,
  migrateDown,
  migrateLatest,
  migrateRollbackAll,
  migrateUp,
  migrationSource,
} from '../src';
import { dropDatabase, quietLogger, uniqueDatabaseUrl } from './db-test-server';

const createCustomers: Migration = {
  name: '20261101000000_create_customers',
  up: async (knex) => {
    await knex.schema.createTable('customers', (t) => {
      t.text('id').primary();
      t.text('name').notNullable();
    });
  },
  down: async (knex) => {
    await knex.schema.dropTable('customers');
  },
};

// A data migration: split `name` into first and last name, and back.
const splitNames: Migration = {
  name: '20261102000000_split_customer_names',
  up: async (knex) => {
    await knex.schema.alterTable('customers', (t) => {
      t.text('first_name');
      t.text('last_name');
    });
    await knex.raw(
      `update customers set first_name = split_part(name, ' ', 1), last_name = substr(name, length(split_part(name, ' ', 1)) + 2)`,
    );
    await knex.schema.alterTable('customers', (t) => t.dropColumn('name'));
  },
  down: async (knex) => {
    await knex.schema.alterTable('customers', (t) => t.text('name'));
    await knex.raw(`update customers set name = trim(first_name || ' ' || coalesce(last_name, ''))`);
    await knex.schema.alterTable('customers', (t) => {
      t.dropColumn('first_name');
      t.dropColumn('last_name');
      t.dropNullable('name');
    });
  },
};

const MIGRATIONS = [createCustomers, splitNames];

describe('migrations', () => {
  let url: string;
  let db: Knex;
  let knexLines: string[];

  beforeEach(async () => {
    url = uniqueDatabaseUrl('migrations');
    await ensureDatabase(url);
    knexLines = [];
    db = createKnex({ url, service: 'migrations-test', pool: { max: 2 }, logger: quietLogger(knexLines) });
  });
  afterEach(async () => {
    await db.destroy();
    await dropDatabase(databaseNameOf(url));
  });

  const columns = async () => Object.keys(await db('customers').columnInfo()).sort();

  it('up one step, data in, up the data migration, assert, then down restores the data', async () => {
    expect(await migrateUp(db, MIGRATIONS)).toEqual([createCustomers.name]);
    expect(await appliedMigrations(db)).toEqual([createCustomers.name]);
    await db('customers').insert([
      { id: 'ACME', name: 'Ada Lovelace' },
      { id: 'GLOBEX', name: 'Grace Brewster Hopper' },
    ]);

    expect(await migrateUp(db, MIGRATIONS)).toEqual([splitNames.name]);
    expect(await columns()).toEqual(['first_name', 'id', 'last_name']);
    expect(await db('customers').orderBy('id').select('id', 'first_name', 'last_name')).toEqual([
      { id: 'ACME', first_name: 'Ada', last_name: 'Lovelace' },
      { id: 'GLOBEX', first_name: 'Grace', last_name: 'Brewster Hopper' },
    ]);

    expect(await migrateDown(db, MIGRATIONS)).toEqual([splitNames.name]);
    expect(await columns()).toEqual(['id', 'name']);
    expect(await db('customers').orderBy('id').pluck('name')).toEqual([
      'Ada Lovelace',
      'Grace Brewster Hopper',
    ]);
    expect(await appliedMigrations(db)).toEqual([createCustomers.name]);
  });

  it('latest applies everything once; a second run applies nothing', async () => {
    expect(await migrateLatest(db, MIGRATIONS)).toEqual(MIGRATIONS.map((m) => m.name));
    expect(await migrateLatest(db, MIGRATIONS)).toEqual([]);
    expect(await migrateUp(db, MIGRATIONS)).toEqual([]);
  });

  it('an older build starts on a database a newer release migrated (a rollback): nothing to apply, nothing undone', async () => {
    await migrateLatest(db, MIGRATIONS);
    expect(await migrateLatest(db, [createCustomers])).toEqual([]);
    expect(await columns()).toEqual(['first_name', 'id', 'last_name']);
    expect(await appliedMigrations(db)).toEqual(MIGRATIONS.map((m) => m.name));
  });

  it('refuses a database holding an unlisted migration older than a listed one (a list edited wrongly)', async () => {
    await migrateUp(db, MIGRATIONS);
    await db('knex_migrations').insert({ name: '20261101120000_lost', batch: 1, migration_time: new Date() });
    await expect(migrateLatest(db, MIGRATIONS)).rejects.toThrow(/20261101120000_lost/);
  });

  it('rollback-all reverts every migration, newest first', async () => {
    await migrateLatest(db, MIGRATIONS);
    expect(await migrateRollbackAll(db, MIGRATIONS)).toEqual([splitNames.name, createCustomers.name]);
    expect(await db.schema.hasTable('customers')).toBe(false);
    expect(await appliedMigrations(db)).toEqual([]);
  });

  it('a failing migration leaves nothing behind and is not recorded', async () => {
    const broken: Migration = {
      name: '20261103000000_broken',
      up: async (knex) => {
        await knex.schema.createTable('half_done', (t) => t.text('id'));
        await knex.raw('select * from no_such_table');
      },
      down: async () => {},
    };
    await migrateLatest(db, MIGRATIONS);
    await expect(migrateLatest(db, [...MIGRATIONS, broken])).rejects.toThrow('no_such_table');
    expect(await db.schema.hasTable('half_done')).toBe(false);
    expect(knexLines.join('\n')).toContain('20261103000000_broken');
    expect(await appliedMigrations(db)).toEqual(MIGRATIONS.map((m) => m.name));
  });

  it('runs a migration marked transaction: false outside a transaction (CREATE INDEX CONCURRENTLY)', async () => {
    const concurrentIndex: Migration = {
      name: '20261104000000_index_customers_concurrently',
      transaction: false,
      up: async (knex) => {
        await knex.raw('create index concurrently customers_first_name on customers (first_name)');
      },
      down: async (knex) => {
        await knex.raw('drop index concurrently customers_first_name');
      },
    };
    await migrateLatest(db, [...MIGRATIONS, concurrentIndex]);
    const idx = await db.raw(`select 1 from pg_indexes where indexname = 'customers_first_name'`);
    expect(idx.rowCount).toBe(1);
  });

  it('refuses a list with a duplicate or out-of-order name', () => {
    expect(() => migrationSource([createCustomers, createCustomers])).toThrow('listed twice');
    expect(() => migrationSource([splitNames, createCustomers])).toThrow('keep the list in order');
  });

  it('a readiness check passes against a live database and fails against a dropped one', async () => {
    await expect(databaseReadinessCheck(db).check()).resolves.toBeUndefined();
    const gone = createKnex({
      url: url.replace(/\/[^/]+$/, '/libdb_never_created_x'),
      acquireConnectionTimeoutMs: 2000,
      logger: quietLogger(),
    });
    try {
      await expect(databaseReadinessCheck(gone).check()).rejects.toThrow(/does not exist/);
    } finally {
      await gone.destroy();
    }
  });
});
