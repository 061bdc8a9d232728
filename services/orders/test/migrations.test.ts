// The migrations run up on an empty database, keep their rules with data, and run all the way down.
import { type Knex, migrateLatest, migrateRollbackAll } from '@ordering/db';
import { type EmptyTestDatabase, createEmptyTestDatabase } from '@ordering/testing';
import { migrations } from '../migrations';

let db: EmptyTestDatabase;
let knex: Knex;

beforeAll(async () => {
  db = await createEmptyTestDatabase({ service: 'orders' });
  knex = db.knex;
});
afterAll(async () => {
  await db?.drop();
});

it('applies every migration, keeps lines and approvers tied to their order, and reverts all', async () => {
  expect(await migrateLatest(knex, migrations)).toEqual(migrations.map((m) => m.name));
  const now = new Date();
  const order = {
    id: 'ord_1',
    cust_id: 'M',
    ordered_by_login: 'sam',
    ordered_by_name: 'Sam',
    status: 'approved',
    currency: 'USD',
    subtotal: 9_007_199_254_740_000,
    tax: 0,
    shipping: 0,
    total: 9_007_199_254_740_000,
    shipping_address: JSON.stringify({ street_1: 's' }),
    submitted_at: now,
    updated_at: now,
  };
  await knex('orders').insert(order);
  // Amounts are 64-bit: beyond 2^31 they stay exact.
  expect((await knex('orders').first()).total).toBe('9007199254740000');
  const line = {
    order_id: 'ord_1',
    item_code: 'X',
    description: 'x',
    quantity: 1,
    unit_price: 1,
    line_total: 1,
  };
  await knex('order_items').insert({ ...line, id: 'oi_1', position: 0 });
  await expect(knex('order_items').insert({ ...line, id: 'oi_2', position: 0 })).rejects.toMatchObject({
    code: '23505',
  });
  await expect(
    knex('order_items').insert({ ...line, id: 'oi_3', position: 1, order_id: 'nope' }),
  ).rejects.toMatchObject({ code: '23503' });
  await knex('order_approvers').insert({ order_id: 'ord_1', approver: 'adam' });
  await expect(knex('order_approvers').insert({ order_id: 'ord_1', approver: 'adam' })).rejects.toMatchObject(
    { code: '23505' },
  );
  await migrateRollbackAll(knex, migrations);
  expect(await knex.schema.hasTable('orders')).toBe(false);
  expect(await knex.schema.hasTable('order_items')).toBe(false);
});
