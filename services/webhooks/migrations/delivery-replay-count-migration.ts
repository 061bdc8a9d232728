import type { Migration } from '@ordering/db';

/**
 * How many times a delivery was replayed: its attempts after a replay are labelled `replay` in the
 * attempt metrics, not `first`, so an integrator replaying a range of failures to a receiver that
 * is still down does not page on-call through the first-attempt failure alert.
 */
export const deliveryReplayCountMigration: Migration = {
  name: '20261125160000_delivery_replay_count',
  async up(knex) {
    await knex.schema.alterTable('webhook_deliveries', (t) => {
      t.integer('replay_count').notNullable().defaultTo(0);
    });
  },
  async down(knex) {
    await knex.schema.alterTable('webhook_deliveries', (t) => {
      t.dropColumn('replay_count');
    });
  },
};
