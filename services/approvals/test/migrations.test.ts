// The migrations run up on an empty database, keep their rules with data, and run all the way down.
import { type Knex, migrateLatest, migrateRollbackAll } from '@ordering/db';
import { type EmptyTestDatabase, createEmptyTestDatabase } from '@ordering/testing';
import { migrations } from '../migrations';

let db: EmptyTestDatabase;
let knex: Knex;

beforeAll(async () => {
  db = await createEmptyTestDatabase({ service: 'approvals' });
  knex = db.knex;
});
afterAll(async () => {
  await db?.drop();
});

it('applies every migration, ties approvals to their order, and reverts all', async () => {
  expect(await migrateLatest(knex, migrations)).toEqual(migrations.map((m) => m.name));
  const now = new Date();
  await knex('approval_chains').insert({
    cust_id: 'M',
    approvers: ['adam', 'april'],
    updated_by: 'ada',
    updated_at: now,
  });
  expect((await knex('approval_chains').first()).approvers).toEqual(['adam', 'april']);
  await knex('approval_orders').insert({
    order_id: 'ord_1',
    cust_id: 'M',
    order_summary: JSON.stringify({ id: 'ord_1' }),
    approvers: ['adam'],
    current_step: 1,
    status: 'pending',
    created_at: now,
  });
  const approval = {
    cust_id: 'M',
    approver: 'adam',
    step: 1,
    status: 'pending',
    order_summary: '{}',
    created_at: now,
  };
  await knex('approvals').insert({ ...approval, id: 'apr_1', order_id: 'ord_1' });
  await expect(
    knex('approvals').insert({ ...approval, id: 'apr_2', order_id: 'nope' }),
  ).rejects.toMatchObject({ code: '23503' });
  await migrateRollbackAll(knex, migrations);
  expect(await knex.schema.hasTable('approvals')).toBe(false);
  expect(await knex.schema.hasTable('approval_chains')).toBe(false);
});
