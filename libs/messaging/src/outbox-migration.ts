// The transactional outbox table. Each service lists `outboxMigration` (and `inboxMigration` if it
// consumes) FIRST in its migrations list: the names sort before any timestamped migration.
import type { Migration } from '@ordering/db';

export const OUTBOX_TABLE = 'outbox';
/** NOTIFY channel the outbox trigger signals on each insert (delivered on commit). */
export const OUTBOX_CHANNEL = 'ordering_outbox';

export const outboxMigration: Migration = {
  name: '00000000000001_messaging_outbox',
  async up(knex) {
    await knex.schema.createTable(OUTBOX_TABLE, (t) => {
      t.bigIncrements('id').primary();
      t.text('topic').notNullable();
      t.text('key').notNullable();
      t.text('event_id').notNullable().unique();
      t.text('event_type').notNullable();
      t.jsonb('payload').notNullable();
      t.jsonb('headers').notNullable().defaultTo('{}');
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('published_at', { useTz: true }).nullable();
    });
    // The relay reads unpublished rows in id order; the purge finds old published ones.
    await knex.raw(`create index outbox_unpublished_idx on ${OUTBOX_TABLE} (id) where published_at is null`);
    await knex.raw(
      `create index outbox_published_at_idx on ${OUTBOX_TABLE} (published_at) where published_at is not null`,
    );
    await knex.raw(`
      create function ${OUTBOX_TABLE}_notify() returns trigger language plpgsql as $$
      begin
        perform pg_notify('${OUTBOX_CHANNEL}', '');
        return null;
      end
      $$`);
    await knex.raw(
      `create trigger ${OUTBOX_TABLE}_notify after insert on ${OUTBOX_TABLE} for each statement execute function ${OUTBOX_TABLE}_notify()`,
    );
  },
  async down(knex) {
    await knex.raw(`drop trigger if exists ${OUTBOX_TABLE}_notify on ${OUTBOX_TABLE}`);
    await knex.raw(`drop function if exists ${OUTBOX_TABLE}_notify()`);
    await knex.schema.dropTableIfExists(OUTBOX_TABLE);
  },
};
