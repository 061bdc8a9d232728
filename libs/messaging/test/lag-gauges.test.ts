// The lag gauges the paging alerts read (docs/operations.md): measured at scrape time against the
// real database and the real broker.
import { startTestMetrics, type TestMetrics } from '@ordering/telemetry';
import createKnex from 'knex';
import { createTestDatabase, unique, type TestDatabase } from '@ordering/testing';
import { OUTBOX_TABLE, observeConsumerLag, observeOutboxLag, outboxMigration } from '../src';
import { createTopic, testKafka } from './helpers/kafka-test-helpers';

let metrics: TestMetrics;
let db: TestDatabase;

beforeAll(async () => {
  metrics = startTestMetrics();
  db = await createTestDatabase({ service: 'messaging', migrations: [outboxMigration] });
});
afterAll(async () => {
  await db.drop();
  await metrics.shutdown();
});

const valueOf = (text: string, series: RegExp) => Number(series.exec(text)?.[1]);

it('outbox lag: the age of the oldest unpublished row and how many wait; 0 once published', async () => {
  const gauge = observeOutboxLag(db.knex);
  try {
    const row = (id: string, ageSeconds: number, published: boolean) => ({
      topic: 'ordering.orders.v1',
      key: id,
      event_id: id,
      event_type: 'order.submitted',
      payload: '{}',
      headers: '{}',
      created_at: db.knex.raw(`now() - interval '${ageSeconds} seconds'`),
      published_at: published ? db.knex.fn.now() : null,
    });
    await db
      .knex(OUTBOX_TABLE)
      .insert([row(unique('evt'), 300, true), row(unique('evt'), 90, false), row(unique('evt'), 5, false)]);
    let text = await metrics.text();
    expect(valueOf(text, /ordering_outbox_lag(?:\{[^}]*\})? ([\d.]+)/)).toBeGreaterThanOrEqual(90);
    expect(valueOf(text, /ordering_outbox_lag(?:\{[^}]*\})? ([\d.]+)/)).toBeLessThan(120);
    expect(valueOf(text, /ordering_outbox_pending(?:\{[^}]*\})? ([\d.]+)/)).toBe(2);

    await db.knex(OUTBOX_TABLE).update({ published_at: db.knex.fn.now() });
    await new Promise((r) => setTimeout(r, 1100)); // one query serves a scrape's two gauges
    text = await metrics.text();
    expect(valueOf(text, /ordering_outbox_lag(?:\{[^}]*\})? ([\d.]+)/)).toBe(0);
    expect(valueOf(text, /ordering_outbox_pending(?:\{[^}]*\})? ([\d.]+)/)).toBe(0);
  } finally {
    await gauge.remove();
  }
});

it("consumer lag: messages past the group's committed offset, summed over partitions", async () => {
  const kafka = testKafka();
  const topic = await createTopic(kafka, 1);
  const group = unique('lag-group');
  const producer = kafka.producer();
  await producer.connect();
  await producer.send({ topic, messages: [1, 2, 3, 4, 5].map((n) => ({ key: 'k', value: String(n) })) });
  await producer.disconnect();
  const gauge = observeConsumerLag(kafka, group, [topic]);
  const series = new RegExp(
    `ordering_consumer_lag\\{group="${group}",topic="${topic.replace(/\./g, '\\.')}"[^}]*\\} (\\d+)`,
  );
  try {
    // Nothing committed yet: the group would read all five.
    expect(valueOf(await metrics.text(), series)).toBe(5);
    const admin = kafka.admin();
    await admin.connect();
    await admin.setOffsets({ groupId: group, topic, partitions: [{ partition: 0, offset: '3' }] });
    await admin.disconnect();
    expect(valueOf(await metrics.text(), series)).toBe(2);
  } finally {
    await gauge.remove();
  }
});

it('a gauge whose query fails stops being reported (the series goes stale, not its last value)', async () => {
  const knex = createKnex({ client: 'pg', connection: db.url, pool: { min: 0, max: 1 } });
  const gauge = observeOutboxLag(knex);
  try {
    expect(await metrics.text()).toMatch(/^ordering_outbox_lag(\{[^}]*\})? /m);
    // The service's database becomes unreachable: each scrape's query now fails.
    await knex.destroy();
    await new Promise((r) => setTimeout(r, 1100)); // past the one-query-per-scrape cache
    const text = await metrics.text();
    expect(text).not.toMatch(/^ordering_outbox_lag(\{[^}]*\})? /m);
    expect(text).not.toMatch(/^ordering_outbox_pending(\{[^}]*\})? /m);
  } finally {
    await gauge.remove();
  }
});
