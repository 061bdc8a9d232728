// What the running auth service's CLIENT_SECRET_KEY is, as a keyed check value (never the key):
// the operator CLI compares its own key with it before it makes a client secret that auth could
// not verify (a checkout run against an environment's database with the local default key).
import type { Knex } from 'knex';
import type { Migration } from '@ordering/db';

export const createKeyChecks: Migration = {
  name: '20261125060000_create_key_checks',
  async up(knex: Knex) {
    await knex.schema.createTable('key_checks', (t) => {
      t.string('name', 64).primary();
      t.string('check_value', 64).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
    });
  },
  async down(knex: Knex) {
    await knex.schema.dropTable('key_checks');
  },
};
