// Customer accounts (a tree through parent_cust_id), their addresses and the e-mail domains that
// map a sign-in to an account for just-in-time provisioning.
import type { Knex } from 'knex';

export const accountsMigration = {
  name: '20261122000100_accounts',
  async up(knex: Knex): Promise<void> {
    await knex.schema.createTable('customers', (t) => {
      t.text('cust_id').primary();
      t.text('name').notNullable();
      t.text('parent_cust_id').nullable().references('cust_id').inTable('customers');
      t.specificType('currency', 'char(3)').notNullable();
      t.bigInteger('approval_required_over').nullable();
      t.text('billing_terms').notNullable();
      t.boolean('jit_provisioning').notNullable().defaultTo(false);
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.index(['parent_cust_id']);
    });
    await knex.schema.createTable('customer_email_domains', (t) => {
      t.text('domain').primary();
      t.text('cust_id').notNullable().references('cust_id').inTable('customers');
      t.index(['cust_id']);
    });
    await knex.schema.createTable('addresses', (t) => {
      t.text('id').primary();
      t.text('cust_id').notNullable().references('cust_id').inTable('customers');
      t.text('type').notNullable();
      t.text('label').notNullable();
      t.text('attention').nullable();
      t.text('street_1').notNullable();
      t.text('street_2').nullable();
      t.text('city').notNullable();
      t.text('region').notNullable();
      t.text('postal_code').notNullable();
      t.specificType('country', 'char(2)').notNullable();
      t.boolean('is_default').notNullable().defaultTo(false);
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.index(['cust_id']);
    });
    await knex.raw(
      `ALTER TABLE addresses ADD CONSTRAINT addresses_type_check CHECK (type IN ('shipping', 'billing'))`,
    );
    // One default address per account and type.
    await knex.raw(
      'CREATE UNIQUE INDEX addresses_one_default_per_type ON addresses (cust_id, type) WHERE is_default',
    );
  },
  async down(knex: Knex): Promise<void> {
    await knex.schema.dropTable('addresses');
    await knex.schema.dropTable('customer_email_domains');
    await knex.schema.dropTable('customers');
  },
};
