// Approval chains per account, the orders going through a chain (with the chain as it was when the
// order was submitted) and one approval per approver and step.
import type { Knex } from 'knex';

export const approvalsMigration = {
  name: '20261124000200_approvals',
  async up(knex: Knex): Promise<void> {
    await knex.schema.createTable('approval_chains', (t) => {
      t.text('cust_id').primary();
      t.specificType('approvers', 'text[]').notNullable();
      t.text('updated_by').notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
    });
    await knex.schema.createTable('approval_orders', (t) => {
      t.text('order_id').primary();
      t.text('cust_id').notNullable();
      t.jsonb('order_summary').notNullable();
      t.specificType('approvers', 'text[]').notNullable();
      t.integer('current_step').notNullable();
      t.text('status').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('decided_at', { useTz: true }).nullable();
    });
    await knex.schema.createTable('approvals', (t) => {
      t.text('id').primary();
      t.text('order_id').notNullable().references('order_id').inTable('approval_orders');
      t.text('cust_id').notNullable();
      t.text('approver').notNullable();
      t.integer('step').notNullable();
      t.text('status').notNullable();
      t.jsonb('order_summary').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('decided_at', { useTz: true }).nullable();
      t.text('reason').nullable();
      t.text('reassigned_from').nullable();
      t.index(['order_id', 'status']);
    });
    await knex.raw('CREATE INDEX approvals_queue ON approvals (approver, status, created_at, id)');
  },
  async down(knex: Knex): Promise<void> {
    await knex.schema.dropTable('approvals');
    await knex.schema.dropTable('approval_orders');
    await knex.schema.dropTable('approval_chains');
  },
};
