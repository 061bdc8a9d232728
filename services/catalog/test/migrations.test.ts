// The migrations run up on an empty database, keep their rules with data (item codes unique, the
// lifecycle and stock states closed sets, the search vectors generated), and run all the way down.
import { type Knex, migrateLatest, migrateRollbackAll } from '@ordering/db';
import { type EmptyTestDatabase, createEmptyTestDatabase } from '@ordering/testing';
import { migrations } from '../migrations';

let db: EmptyTestDatabase;
let knex: Knex;

beforeAll(async () => {
  db = await createEmptyTestDatabase({ service: 'catalog' });
  knex = db.knex;
});
afterAll(async () => {
  await db?.drop();
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
