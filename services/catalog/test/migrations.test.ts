// The migrations run up on an empty database, keep their rules with data (item codes unique, the
// lifecycle and stock states closed sets, the search vectors generated), and run all the way down.
import { randomBytes } from 'node:crypto';
import {
  type Knex,
  createKnex,
  ensureDatabase,
  migrateLatest,
  migrateRollbackAll,
  withDatabase,
} from '@ordering/db';
import { PG_ADMIN_URL } from '@ordering/testing';
import pg from 'pg';
import { migrations } from '../migrations';

const name = `test_catalog_migrations_${randomBytes(4).toString('hex')}`;
let knex: Knex;

beforeAll(async () => {
  const url = withDatabase(PG_ADMIN_URL, name);
  await ensureDatabase(url);
  knex = createKnex({ url, pool: { max: 2 } });
});
afterAll(async () => {
  await knex?.destroy();
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  await admin.query(`drop database if exists "${name}" with (force)`);
  await admin.end();
});

it('applies every migration, holds the rules with data, and reverts all', async () => {
  expect(await migrateLatest(knex, migrations)).toEqual(migrations.map((m) => m.name));
  await knex('categories').insert({ id: 'office', name: 'Office' });
  const item = (code: string, extra: Record<string, unknown> = {}) => ({
    id: `itm_${code}`,
    item_code: code,
    name: 'Desk staplers',
    description: 'For paper',
    category_id: 'office',
    currency: 'USD',
    base_tiers: JSON.stringify([{ min_qty: 1, amount: 100 }]),
    ...extra,
  });
  await knex('items').insert(item('STP-1'));
  await expect(knex('items').insert({ ...item('STP-1'), id: 'itm_other' })).rejects.toThrow(/unique/);
  await expect(knex('items').insert(item('STP-2', { lifecycle: 'gone' }))).rejects.toThrow(/check/);
  await expect(knex('items').insert(item('STP-3', { stock_state: 'maybe' }))).rejects.toThrow(/check/);
  await expect(knex('items').insert(item('STP-4', { category_id: 'nope' }))).rejects.toThrow(/foreign key/);
  const { rows } = await knex.raw(
    `select search::text as search, name_search::text as name_search from items where item_code = 'STP-1'`,
  );
  expect(rows[0].search).toContain("'stapler':");
  expect(rows[0].search).toContain("'paper':");
  expect(rows[0].name_search).not.toContain("'paper'");

  expect(await migrateRollbackAll(knex, migrations)).toEqual(migrations.map((m) => m.name).reverse());
  const { rows: tables } = await knex.raw(
    `select table_name from information_schema.tables where table_schema = 'public' and table_name not like 'knex%'`,
  );
  expect(tables).toEqual([]);
});
