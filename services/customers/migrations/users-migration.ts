// Shoppers and their credentials. Logins are unique across every account, compared without case.
import type { Knex } from 'knex';

export const usersMigration = {
  name: '20261122000200_users',
  async up(knex: Knex): Promise<void> {
    await knex.schema.createTable('users', (t) => {
      t.text('login').primary();
      t.text('cust_id').notNullable().references('cust_id').inTable('customers');
      t.text('name').notNullable();
      t.text('email').notNullable();
      t.specificType('roles', 'text[]').notNullable();
      t.text('status').notNullable();
      t.text('employee_id').nullable();
      t.text('department').nullable();
      t.text('cost_center').nullable();
      t.text('external_id').nullable();
      t.text('given_name').nullable();
      t.text('family_name').nullable();
      t.text('password_hash').nullable();
      t.timestamp('password_set_at', { useTz: true }).nullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.timestamp('deactivated_at', { useTz: true }).nullable();
      // Set by SCIM DELETE: the record stays (deactivated) but SCIM answers 404 for it (RFC 7644 3.6).
      t.timestamp('scim_deleted_at', { useTz: true }).nullable();
      t.index(['cust_id', 'login']);
    });
    await knex.raw('CREATE UNIQUE INDEX users_login_lower ON users (lower(login))');
    await knex.raw('CREATE INDEX users_email_lower ON users (lower(email))');
    await knex.raw(
      `ALTER TABLE users ADD CONSTRAINT users_status_check CHECK (status IN ('active', 'deactivated'))`,
    );
    // Failed sign-ins per login (known or not), to slow down guessing.
    await knex.schema.createTable('login_failures', (t) => {
      t.text('login_key').primary();
      t.integer('failures').notNullable();
      t.timestamp('last_failure_at', { useTz: true }).notNullable();
    });
    // One-time links to set a password: only a hash of the token is stored.
    await knex.schema.createTable('password_tokens', (t) => {
      t.text('token_hash').primary();
      t.text('login').notNullable().references('login').inTable('users');
      t.timestamp('expires_at', { useTz: true }).notNullable();
      t.timestamp('used_at', { useTz: true }).nullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
    });
  },
  async down(knex: Knex): Promise<void> {
    await knex.schema.dropTable('password_tokens');
    await knex.schema.dropTable('login_failures');
    await knex.schema.dropTable('users');
  },
};
