// Orders, their lines and the approvers whose queue an order entered (who may read it).
// Amounts are integers in the currency's minor unit.
import type { Knex } from 'knex';

export const ordersMigration = {
  name: '20261124000100_orders',
  async up(knex: Knex): Promise<void> {
    await knex.schema.createTable('orders', (t) => {
      t.text('id').primary();
      t.text('cust_id').notNullable();
      t.text('ordered_by_login').notNullable();
      t.text('ordered_by_name').notNullable();
      t.text('status').notNullable();
      t.text('currency').notNullable();
      t.bigInteger('subtotal').notNullable();
      t.bigInteger('tax').notNullable();
      t.bigInteger('shipping').notNullable();
      t.bigInteger('total').notNullable();
      t.jsonb('shipping_address').notNullable();
      t.text('cost_center').nullable();
      t.text('po_number').nullable();
      t.timestamp('submitted_at', { useTz: true }).notNullable();
      t.timestamp('approved_at', { useTz: true }).nullable();
      t.timestamp('in_production_at', { useTz: true }).nullable();
      t.timestamp('delivered_at', { useTz: true }).nullable();
      t.timestamp('cancelled_at', { useTz: true }).nullable();
      t.jsonb('cancellation').nullable();
      t.jsonb('rejection').nullable();
      t.jsonb('shipment').nullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
    });
    await knex.raw('CREATE INDEX orders_by_account ON orders (cust_id, submitted_at DESC, id DESC)');
    await knex.raw('CREATE INDEX orders_by_buyer ON orders (ordered_by_login, submitted_at DESC, id DESC)');
    await knex.schema.createTable('order_items', (t) => {
      t.text('id').primary();
      t.text('order_id').notNullable().references('id').inTable('orders').onDelete('CASCADE');
      t.integer('position').notNullable();
      t.text('item_code').notNullable();
      t.text('description').notNullable();
      t.integer('quantity').notNullable();
      t.bigInteger('unit_price').notNullable();
      t.bigInteger('line_total').notNullable();
      t.unique(['order_id', 'position']);
    });
    await knex.schema.createTable('order_approvers', (t) => {
      t.text('order_id').notNullable().references('id').inTable('orders').onDelete('CASCADE');
      t.text('approver').notNullable();
      t.primary(['order_id', 'approver']);
      t.index(['approver']);
    });
  },
  async down(knex: Knex): Promise<void> {
    await knex.schema.dropTable('order_approvers');
    await knex.schema.dropTable('order_items');
    await knex.schema.dropTable('orders');
  },
};
