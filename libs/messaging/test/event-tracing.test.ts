import { SpanKind, trace } from '@opentelemetry/api';
import { TOPICS, exampleOrder, newEvent } from '@ordering/contracts';
import { startInMemoryTracing, type InMemoryTracing } from '@ordering/telemetry';
import { createTestDatabase, type TestDatabase } from '@ordering/testing';
import { createConsumer, enqueueEvent, inboxMigration, OutboxRelay, outboxMigration } from '../src';
import { testKafka } from './helpers/kafka-test-helpers';
import { unique, waitUntil } from '@ordering/testing';

let tracing: InMemoryTracing;
let db: TestDatabase;

beforeAll(async () => {
  tracing = startInMemoryTracing();
  db = await createTestDatabase({ service: 'messaging', migrations: [outboxMigration, inboxMigration] });
});

afterAll(async () => {
  await db.drop();
  await tracing.shutdown();
});

it('the consumer span continues the trace of the request that enqueued the event, through the relay', async () => {
  const kafka = testKafka();
  const orderId = unique('ord');
  const seen: { traceId: string | undefined }[] = [];
  const consumer = createConsumer({
    kafka,
    knex: db.knex,
    groupId: unique('trace-group'),
    topics: [TOPICS.orders],
    fromBeginning: false,
    sessionTimeoutMs: 6000,
    heartbeatIntervalMs: 500,
    maxWaitTimeMs: 100,
    handlers: {
      'order.submitted': async (event) => {
        if (event.data.id === orderId) seen.push({ traceId: trace.getActiveSpan()?.spanContext().traceId });
      },
    },
  });
  const relay = new OutboxRelay({ knex: db.knex, kafka });
  try {
    await consumer.start();
    await consumer.waitForGroupJoin();

    const requestTraceId = await trace.getTracer('test').startActiveSpan('POST /v1/orders', async (span) => {
      const event = newEvent({
        type: 'order.submitted',
        cust_id: 'ACME',
        data: exampleOrder({ id: orderId }),
      });
      await db.knex.transaction((trx) => enqueueEvent(trx, event));
      span.end();
      return span.spanContext().traceId;
    });
    await relay.flush();
    await waitUntil(() => seen.length > 0, 15_000, 'the event consumed');
    await waitUntil(
      () =>
        tracing
          .spans()
          .some((s) => s.kind === SpanKind.CONSUMER && s.spanContext().traceId === requestTraceId),
      5_000,
      'the consumer span ended',
    );

    expect(seen).toEqual([{ traceId: requestTraceId }]);
    const spans = tracing.spans();
    const producer = spans.find(
      (s) => s.kind === SpanKind.PRODUCER && s.attributes['messaging.kafka.message.key'] === orderId,
    )!;
    const consumerSpan = spans.find(
      (s) => s.kind === SpanKind.CONSUMER && s.spanContext().traceId === requestTraceId,
    )!;
    expect(producer.spanContext().traceId).toBe(requestTraceId);
    expect(producer.name).toBe(`${TOPICS.orders} publish`);
    expect(consumerSpan.parentSpanContext?.spanId).toBe(producer.spanContext().spanId);
    // The queries of the traced work are spans of their own (knex query events), the outbox insert
    // under the request's span and the inbox insert under the consumer's; the relay's polling is not.
    const queries = spans.filter(
      (s) => s.kind === SpanKind.CLIENT && s.spanContext().traceId === requestTraceId,
    );
    expect(queries.map((q) => q.name)).toEqual(
      expect.arrayContaining(['INSERT outbox', 'INSERT processed_events']),
    );
    const inboxInsert = queries.find((q) => q.name === 'INSERT processed_events')!;
    expect(inboxInsert.parentSpanContext?.spanId).toBe(consumerSpan.spanContext().spanId);
    expect(inboxInsert.attributes['db.query.text']).toMatch(/^insert into "processed_events"/);
    expect(inboxInsert.attributes['db.query.text']).not.toContain(orderId);
    expect(consumerSpan.attributes['ordering.event_id']).toMatch(/^evt_/);
    expect(
      spans.filter((s) => s.kind === SpanKind.CLIENT && s.name.startsWith('SELECT outbox')),
    ).toHaveLength(0);
    expect(consumerSpan.attributes).toMatchObject({
      'messaging.destination.name': TOPICS.orders,
      'messaging.system': 'kafka',
    });
  } finally {
    await consumer.stop();
    await relay.stop();
  }
});
