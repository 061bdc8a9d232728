// The migrations run up on an empty database, keep their rules with data, and run all the way down.
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

const name = `test_approvals_migrations_${randomBytes(4).toString('hex')}`;
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
