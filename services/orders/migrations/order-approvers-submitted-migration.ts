// The orders of an approver's queue, newest first, from the queue alone: `order_approvers` keeps
// its order's `submitted_at` (set by a trigger from the order, whoever inserts the row; an order's
// submission time never changes), indexed with the approver. A page of an approver's list then
// reads about a page of queue entries instead of joining every order the approver ever had in
// their queue to `orders` and sorting them (6,000 orders: 200-300 ms a page).
import type { Knex } from 'knex';
import type { Migration } from '@ordering/db';

export const orderApproversSubmittedMigration: Migration = {
  name: '20261125000200_order_approvers_submitted_at',
  async up(knex: Knex): Promise<void> {
    await knex.raw('ALTER TABLE order_approvers ADD COLUMN submitted_at timestamptz');
    await knex.raw(`
      CREATE FUNCTION order_approvers_submitted_at() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        SELECT submitted_at INTO NEW.submitted_at FROM orders WHERE id = NEW.order_id;
        RETURN NEW;
      END $$`);
    await knex.raw(`
      CREATE TRIGGER order_approvers_submitted_at BEFORE INSERT ON order_approvers
      FOR EACH ROW EXECUTE FUNCTION order_approvers_submitted_at()`);
    await knex.raw(
      'UPDATE order_approvers a SET submitted_at = o.submitted_at FROM orders o WHERE o.id = a.order_id',
    );
    await knex.raw('ALTER TABLE order_approvers ALTER COLUMN submitted_at SET NOT NULL');
    await knex.raw(
      'CREATE INDEX order_approvers_queue ON order_approvers (approver, submitted_at DESC, order_id DESC)',
    );
  },
  async down(knex: Knex): Promise<void> {
    await knex.raw('DROP TRIGGER order_approvers_submitted_at ON order_approvers');
    await knex.raw('DROP FUNCTION order_approvers_submitted_at()');
    await knex.raw('ALTER TABLE order_approvers DROP COLUMN submitted_at');
  },
};
