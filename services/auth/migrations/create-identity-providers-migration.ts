// The registry of company identity providers for federated sign-in: one per e-mail domain, the
// client secret sealed with KEY_ENCRYPTION_KEY (the service must present it, so it cannot be hashed).
import type { Knex } from 'knex';
import type { Migration } from '@ordering/db';

export const createIdentityProviders: Migration = {
  name: '20261122040000_create_identity_providers',
  async up(knex: Knex) {
    await knex.schema.createTable('identity_providers', (t) => {
      t.string('domain', 253).primary();
      t.text('issuer').notNullable();
      t.string('client_id', 255).notNullable();
      t.text('client_secret_encrypted').notNullable();
      t.string('display_name', 200).notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
    });
    await knex.raw(
      'alter table identity_providers add constraint identity_providers_domain_lower_check check (domain = lower(domain))',
    );
  },
  async down(knex: Knex) {
    await knex.schema.dropTable('identity_providers');
  },
};
