// The migrations run up on an empty database, keep their rules with data, and run all the way down.
import { type Knex, migrateLatest, migrateRollbackAll } from '@ordering/db';
import { type EmptyTestDatabase, createEmptyTestDatabase } from '@ordering/testing';
import { migrations } from '../migrations';

let db: EmptyTestDatabase;
let knex: Knex;

beforeAll(async () => {
  db = await createEmptyTestDatabase({ service: 'customers' });
  knex = db.knex;
});
afterAll(async () => {
  await db?.drop();
});

it('applies every migration, enforces one default address per type and unique logins, and reverts all', async () => {
  expect(await migrateLatest(knex, migrations)).toEqual(migrations.map((m) => m.name));
  const now = new Date();
  await knex('customers').insert({
    cust_id: 'M',
    name: 'M',
    currency: 'USD',
    billing_terms: 'net_30',
    created_at: now,
    updated_at: now,
  });
  const address = {
    cust_id: 'M',
    type: 'shipping',
    label: 'a',
    street_1: 's',
    city: 'c',
    region: '',
    postal_code: '',
    country: 'US',
    created_at: now,
  };
  await knex('addresses').insert({ ...address, id: 'a1', is_default: true });
  await expect(knex('addresses').insert({ ...address, id: 'a2', is_default: true })).rejects.toMatchObject({
    code: '23505',
  });
  await expect(knex('addresses').insert({ ...address, id: 'a3', type: 'warehouse' })).rejects.toMatchObject({
    code: '23514',
  });
  const user = {
    cust_id: 'M',
    name: 'n',
    email: 'e@x.example',
    roles: ['shopper'],
    status: 'active',
    created_at: now,
    updated_at: now,
  };
  await knex('users').insert({ ...user, login: 'Ann' });
  await expect(knex('users').insert({ ...user, login: 'ann' })).rejects.toMatchObject({ code: '23505' });

  // The previous version's pods keep counting sign-in failures during a rolling upgrade.
  await knex('login_failures').insert({ login_key: 'ann', failures: 1, last_failure_at: now });
  expect(await knex('login_failures').first()).toMatchObject({ window_started_at: expect.any(Date) });

  expect(await migrateRollbackAll(knex, migrations)).toHaveLength(migrations.length);
  for (const table of [
    'customers',
    'addresses',
    'users',
    'idempotency_keys',
    'outbox',
    'login_failures',
    'login_address_failures',
  ]) {
    expect(await knex.schema.hasTable(table)).toBe(false);
  }
});
