import type { Migration } from '@ordering/db';

/**
 * A subscription's deliveries of one event type, or of one status, newest first: a page filtered by
 * `event_type` or `status` reads one page of its index instead of walking the subscription's
 * deliveries back past those of other types (200 `user.created` among 200,000 deliveries: every
 * one of them read, 130-165 ms, for a page of 100) or statuses (a rare `failed`). Built
 * concurrently: `webhook_deliveries` is large and written all the time.
 */
export const deliveryListIndexesMigration: Migration = {
  name: '20261125000100_delivery_list_indexes',
  transaction: false,
  async up(knex) {
    await knex.raw(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS webhook_deliveries_by_type
       ON webhook_deliveries (subscription_id, event_type, created_at DESC, id DESC)`,
    );
    await knex.raw(
      `CREATE INDEX CONCURRENTLY IF NOT EXISTS webhook_deliveries_by_status
       ON webhook_deliveries (subscription_id, status, created_at DESC, id DESC)`,
    );
  },
  async down(knex) {
    await knex.raw('DROP INDEX CONCURRENTLY IF EXISTS webhook_deliveries_by_status');
    await knex.raw('DROP INDEX CONCURRENTLY IF EXISTS webhook_deliveries_by_type');
  },
};
