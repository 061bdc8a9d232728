import { appliedMigrations, migrateLatest, migrateRollbackAll } from '@ordering/db';
import { createTestDatabase, type TestDatabase } from '@ordering/testing';
import { migrations } from '../migrations';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase({ service: 'auth', migrations });
});
afterAll(async () => {
  await db?.drop();
});

describe('auth migrations', () => {
  it('apply in order, enforce one active signing key, and roll back completely', async () => {
    expect(await appliedMigrations(db.knex)).toEqual(migrations.map((m) => m.name));
    const key = (kid: string) => ({
      kid,
      alg: 'RS256',
      public_jwk: '{}',
      private_jwk_encrypted: 'v1.x.y.z',
      status: 'active',
      created_at: new Date(),
    });
    await db.knex('signing_keys').insert(key('a'));
    await expect(db.knex('signing_keys').insert(key('b'))).rejects.toThrow(/signing_keys_one_active/);
    await expect(
      db.knex('oauth_clients').insert({
        client_id: 'x',
        name: 'x',
        type: 'robot',
        scopes: '[]',
        cust_id: 'A',
        login: 'a',
        created_at: new Date(),
      }),
    ).rejects.toThrow(/oauth_clients_type_check/);

    await migrateRollbackAll(db.knex, migrations);
    for (const table of ['oidc_payloads', 'oauth_clients', 'signing_keys', 'outbox']) {
      expect(await db.knex.schema.hasTable(table)).toBe(false);
    }
    await migrateLatest(db.knex, migrations);
    expect(await db.knex.schema.hasTable('oidc_payloads')).toBe(true);
  });
});
