import type { Migration } from '@ordering/db';

/**
 * Subscriptions, their signing secrets (encrypted), and one delivery per (event, subscription) with
 * every attempt. Schedule times (`next_attempt_at`, `first_attempt_at`, attempts' `attempted_at`)
 * are on the service's delivery clock, which tests speed up; the lease is real time.
 */
export const webhooksMigration: Migration = {
  name: '20261124000100_webhook_subscriptions_and_deliveries',
  async up(knex) {
    await knex.schema.createTable('webhook_subscriptions', (t) => {
      t.string('id').primary();
      t.string('cust_id').notNullable();
      t.text('url').notNullable();
      t.specificType('events', 'text[]').notNullable();
      t.text('description');
      t.string('status').notNullable();
      t.string('ordering').notNullable().defaultTo('none');
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.index(['cust_id', 'created_at']);
    });
    await knex.schema.createTable('webhook_secrets', (t) => {
      t.bigIncrements('id');
      t.string('subscription_id').notNullable().references('webhook_subscriptions.id').onDelete('CASCADE');
      t.text('secret_encrypted').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
      /** Null for the current secret; a rotated-out secret signs until then. */
      t.timestamp('expires_at', { useTz: true });
      t.index(['subscription_id']);
    });
    await knex.schema.createTable('webhook_deliveries', (t) => {
      t.string('id').primary();
      t.bigIncrements('seq', { primaryKey: false });
      t.string('subscription_id').notNullable().references('webhook_subscriptions.id').onDelete('CASCADE');
      t.string('event_id').notNullable();
      t.string('event_type').notNullable();
      t.jsonb('event').notNullable();
      /** The resource the event is about (ordered subscriptions deliver one resource's events in order). */
      t.string('resource_key');
      t.boolean('ordered').notNullable().defaultTo(false);
      t.string('status').notNullable();
      t.integer('attempt_count').notNullable().defaultTo(0);
      t.timestamp('next_attempt_at', { useTz: true });
      t.timestamp('first_attempt_at', { useTz: true });
      t.string('lease_owner');
      t.timestamp('lease_until', { useTz: true });
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.unique(['event_id', 'subscription_id']);
      t.index(['subscription_id', 'created_at']);
    });
    await knex.raw(
      `CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE status = 'pending'`,
    );
    await knex.raw(
      `CREATE INDEX webhook_deliveries_ordered ON webhook_deliveries (subscription_id, resource_key, seq)
       WHERE status = 'pending' AND ordered`,
    );
    await knex.schema.createTable('webhook_delivery_attempts', (t) => {
      t.bigIncrements('id');
      t.string('delivery_id').notNullable().references('webhook_deliveries.id').onDelete('CASCADE');
      t.timestamp('attempted_at', { useTz: true }).notNullable();
      t.integer('status_code');
      t.integer('latency_ms');
      t.text('error');
      t.text('response_excerpt');
      t.index(['delivery_id', 'id']);
    });
  },
  async down(knex) {
    await knex.schema.dropTable('webhook_delivery_attempts');
    await knex.schema.dropTable('webhook_deliveries');
    await knex.schema.dropTable('webhook_secrets');
    await knex.schema.dropTable('webhook_subscriptions');
  },
};
