// A service restarted (a crash, a rollout, a new replica) while Kafka is down: its consumer's
// start does not fail, so the process comes up and serves its API and outbox; the consumer joins
// its group by itself once Kafka answers, and applies what waited in Kafka.
import { exampleOrder, newEvent } from '@ordering/contracts';
import { createTestDatabase, unique, waitUntil, type TestDatabase } from '@ordering/testing';
import { createConsumer, inboxMigration, type ConsumerRunner } from '../src';
import { BROKERS, createTopic, recordingLogger, testKafka } from './helpers/kafka-test-helpers';

let db: TestDatabase;
beforeAll(async () => {
  db = await createTestDatabase({ service: 'consumer-start', migrations: [inboxMigration] });
  await db.knex.schema.createTable('applied', (t) => t.text('ref').primary());
});
afterAll(() => db?.drop());

describe('a consumer started while Kafka is unreachable', () => {
  let runner: ConsumerRunner | undefined;
  afterEach(() => runner?.stop());

  it('starts anyway, is not joined, and consumes once Kafka answers', async () => {
    let brokers = ['127.0.0.1:1'];
    const kafka = testKafka(() => brokers);
    const topic = await createTopic(testKafka());
    const logger = recordingLogger();
    runner = createConsumer({
      kafka,
      knex: db.knex,
      logger,
      groupId: unique('start-without-kafka'),
      topics: [topic],
      handlers: {
        'order.approved': async (event, { trx }) => {
          await trx('applied').insert({ ref: event.data.id });
        },
      },
      sessionTimeoutMs: 6000,
      heartbeatIntervalMs: 500,
      maxWaitTimeMs: 100,
    });

    await runner.start();
    await expect(runner.waitForGroupJoin(100)).rejects.toThrow(/cannot reach Kafka/);
    expect(logger.entries.some((e) => e.level === 'warn' && /Kafka is unreachable/.test(e.msg ?? ''))).toBe(
      true,
    );

    const producer = testKafka().producer();
    await producer.connect();
    const event = newEvent({
      type: 'order.approved',
      cust_id: 'ACME',
      data: exampleOrder({ id: 'ord_waited' }),
    });
    await producer.send({ topic, messages: [{ key: 'ord_waited', value: JSON.stringify(event) }] });
    await producer.disconnect();

    brokers = BROKERS;
    await waitUntil(
      async () => (await db.knex('applied').where({ ref: 'ord_waited' })).length === 1,
      20_000,
      'the event that waited in Kafka applied',
    );
    await runner.waitForGroupJoin(1000);
  });
});
