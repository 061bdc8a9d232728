// An account's orders of one status, newest first: the list filtered by `status` reads one page of
// the index instead of walking the account's orders past those of other statuses (10k shipped
// among an account's 100k orders: 1,000 rows read for a page of 100; 6k pending_approval in a tree
// of 120k: the whole tree). Built concurrently: `orders` is large and written all the time.
import type { Knex } from 'knex';
import type { Migration } from '@ordering/db';

export const ordersListIndexesMigration: Migration = {
  name: '20261125000100_orders_list_indexes',
  transaction: false,
  async up(knex: Knex): Promise<void> {
    await knex.raw(
      'CREATE INDEX CONCURRENTLY IF NOT EXISTS orders_by_account_status ON orders (cust_id, status, submitted_at DESC, id DESC)',
    );
  },
  async down(knex: Knex): Promise<void> {
    await knex.raw('DROP INDEX CONCURRENTLY IF EXISTS orders_by_account_status');
  },
};
