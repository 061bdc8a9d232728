// The inbox of idempotent consumers: one row per (consumer, event) applied, written in the same
// transaction as the effect, so a redelivered message is recognised and skipped.
import type { Knex } from 'knex';
import type { Migration } from '@ordering/db';

export const INBOX_TABLE = 'processed_events';

export const inboxMigration: Migration = {
  name: '00000000000002_messaging_inbox',
  async up(knex) {
    await knex.schema.createTable(INBOX_TABLE, (t) => {
      t.text('consumer').notNullable();
      t.text('event_id').notNullable();
      t.timestamp('processed_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.primary(['consumer', 'event_id']);
      t.index(['processed_at']);
    });
  },
  async down(knex) {
    await knex.schema.dropTableIfExists(INBOX_TABLE);
  },
};

/** Forgets applied events older than `olderThanMs` (keep it well above the topics' retention). */
export async function purgeProcessedEvents(
  knex: Knex,
  consumer: string,
  olderThanMs: number,
): Promise<number> {
  return knex(INBOX_TABLE)
    .where({ consumer })
    .andWhere('processed_at', '<', knex.raw(`now() - (? * interval '1 millisecond')`, [olderThanMs]))
    .delete();
}
