import type { Migration } from '@ordering/db';

/**
 * The trace context a delivery was created in (the consumer's span of its event, or the request of a
 * test delivery): every attempt, hours later or replayed, joins that trace.
 */
export const deliveryTraceMigration: Migration = {
  name: '20261124020000_delivery_trace_context',
  async up(knex) {
    await knex.schema.alterTable('webhook_deliveries', (t) => {
      t.jsonb('trace_context');
    });
  },
  async down(knex) {
    await knex.schema.alterTable('webhook_deliveries', (t) => {
      t.dropColumn('trace_context');
    });
  },
};
