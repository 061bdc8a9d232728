import type { Migration } from '@ordering/db';

/** Every domain event of an account, as received: the source of webhook fan-out. */
export const accountEventsMigration: Migration = {
  name: '20261122000100_account_events',
  async up(knex) {
    await knex.schema.createTable('account_events', (t) => {
      t.string('event_id').primary();
      t.string('type').notNullable();
      t.string('cust_id').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.jsonb('payload').notNullable();
      t.string('trace_id');
      t.timestamp('received_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.index(['cust_id', 'created_at']);
    });
  },
  async down(knex) {
    await knex.schema.dropTable('account_events');
  },
};
