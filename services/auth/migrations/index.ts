// The auth service's schema, in order. Outbox and inbox tables come from @ordering/messaging.
import type { Knex } from 'knex';
import type { Migration } from '@ordering/db';
import { inboxMigration, outboxMigration } from '@ordering/messaging';
import { addClientSecretRotation } from './client-secret-rotation-migration';
import { createIdentityProviders } from './create-identity-providers-migration';
import { createKeyChecks } from './create-key-checks-migration';

const createOidcPayloads: Migration = {
  name: '20261122030000_create_oidc_payloads',
  async up(knex: Knex) {
    await knex.schema.createTable('oidc_payloads', (t) => {
      t.string('model', 64).notNullable();
      t.string('id', 255).notNullable();
      t.jsonb('payload').notNullable();
      t.string('grant_id', 255);
      t.string('uid', 255);
      t.string('user_code', 255);
      t.timestamp('expires_at', { useTz: true });
      t.timestamp('consumed_at', { useTz: true });
      t.primary(['model', 'id']);
      t.index(['model', 'grant_id']);
      t.index(['model', 'uid']);
      t.index(['model', 'user_code']);
      t.index(['expires_at']);
    });
  },
  async down(knex: Knex) {
    await knex.schema.dropTable('oidc_payloads');
  },
};

const createOauthClients: Migration = {
  name: '20261122030100_create_oauth_clients',
  async up(knex: Knex) {
    await knex.schema.createTable('oauth_clients', (t) => {
      t.string('client_id', 100).primary();
      t.string('name', 200).notNullable();
      t.string('type', 16).notNullable();
      t.boolean('first_party').notNullable().defaultTo(false);
      t.jsonb('redirect_uris').notNullable().defaultTo('[]');
      t.jsonb('scopes').notNullable();
      t.string('cust_id', 100).notNullable();
      t.string('login', 100).notNullable();
      t.string('secret_hash', 64);
      t.string('status', 16).notNullable().defaultTo('active');
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('secret_rotated_at', { useTz: true });
      t.timestamp('disabled_at', { useTz: true });
    });
    await knex.raw(
      "alter table oauth_clients add constraint oauth_clients_type_check check (type in ('service','web','native')), add constraint oauth_clients_status_check check (status in ('active','disabled'))",
    );
  },
  async down(knex: Knex) {
    await knex.schema.dropTable('oauth_clients');
  },
};

const createSigningKeys: Migration = {
  name: '20261122030200_create_signing_keys',
  async up(knex: Knex) {
    await knex.schema.createTable('signing_keys', (t) => {
      t.string('kid', 100).primary();
      t.string('alg', 16).notNullable();
      t.jsonb('public_jwk').notNullable();
      t.text('private_jwk_encrypted').notNullable();
      t.string('status', 16).notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('retired_at', { useTz: true });
      t.timestamp('publish_until', { useTz: true });
    });
    // At most one signing key at a time.
    await knex.raw(
      "create unique index signing_keys_one_active on signing_keys (status) where status = 'active'",
    );
  },
  async down(knex: Knex) {
    await knex.schema.dropTable('signing_keys');
  },
};

export const migrations: Migration[] = [
  outboxMigration,
  inboxMigration,
  createOidcPayloads,
  createOauthClients,
  createSigningKeys,
  createIdentityProviders,
  addClientSecretRotation,
  createKeyChecks,
];
