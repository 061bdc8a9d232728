import { migrateDown, migrateLatest } from '@ordering/db';
import { createTestDatabase, type TestDatabase } from '@ordering/testing';
import { inboxMigration, OUTBOX_CHANNEL, outboxMigration } from '../src';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase({ service: 'messaging-empty', migrations: [] });
});
afterAll(() => db.drop());

const tables = async () =>
  (
    await db
      .knex('information_schema.tables')
      .where({ table_schema: 'public' })
      .whereIn('table_name', ['outbox', 'processed_events'])
      .orderBy('table_name')
      .pluck('table_name')
  ).map(String);

it('the outbox and inbox migrations go up (the outbox notifies on insert) and down again', async () => {
  const migrations = [outboxMigration, inboxMigration];
  expect(await migrateLatest(db.knex, migrations)).toEqual([outboxMigration.name, inboxMigration.name]);
  expect(await tables()).toEqual(['outbox', 'processed_events']);

  // A committed insert notifies the relay's channel.
  const listener = await db.knex.client.acquireConnection();
  try {
    const notified = new Promise<string>((resolve) =>
      listener.on('notification', (m: { channel: string }) => resolve(m.channel)),
    );
    await listener.query(`listen ${OUTBOX_CHANNEL}`);
    await db
      .knex('outbox')
      .insert({ topic: 't', key: 'k', event_id: 'evt_1', event_type: 'order.approved', payload: '{}' });
    expect(await notified).toBe(OUTBOX_CHANNEL);
  } finally {
    await listener.query(`unlisten ${OUTBOX_CHANNEL}`);
    await db.knex.client.releaseConnection(listener);
  }
  await db.knex('processed_events').insert({ consumer: 'c', event_id: 'evt_1' });
  await expect(db.knex('processed_events').insert({ consumer: 'c', event_id: 'evt_1' })).rejects.toThrow(
    /duplicate key/,
  );

  await migrateDown(db.knex, migrations);
  await migrateDown(db.knex, migrations);
  expect(await tables()).toEqual([]);
});
