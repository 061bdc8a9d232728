// Client secrets fall due 180 days after they were issued, and a rotation through the API keeps
// the previous secret working for 24 h (its hash and end kept beside the current one). A platform
// client (the developer portal) signs in users of every account rather than of one account's tree.
import type { Knex } from 'knex';
import type { Migration } from '@ordering/db';

export const addClientSecretRotation: Migration = {
  name: '20261124010000_add_client_secret_rotation',
  async up(knex: Knex) {
    await knex.schema.alterTable('oauth_clients', (t) => {
      t.string('previous_secret_hash', 64);
      t.timestamp('previous_secret_expires_at', { useTz: true });
      t.boolean('all_accounts').notNullable().defaultTo(false);
    });
    await knex.raw(
      'alter table oauth_clients add constraint oauth_clients_previous_secret_check check ((previous_secret_hash is null) = (previous_secret_expires_at is null))',
    );
  },
  async down(knex: Knex) {
    await knex.schema.alterTable('oauth_clients', (t) => {
      t.dropChecks(['oauth_clients_previous_secret_check']);
      t.dropColumn('previous_secret_hash');
      t.dropColumn('previous_secret_expires_at');
      t.dropColumn('all_accounts');
    });
  },
};
