import type { Kafka, Producer } from 'kafkajs';
import { FulfilmentUpdate, TOPICS, exampleOrder, newEvent, type EventEnvelope } from '@ordering/contracts';
import { createTestDatabase, type TestDatabase } from '@ordering/testing';
import {
  createConsumer,
  DEAD_LETTER_HEADERS,
  inboxMigration,
  outboxMigration,
  PermanentError,
  readDeadLetter,
  topicHandler,
  type ConsumerOptions,
  type ConsumerRunner,
  type EventHandlers,
} from '../src';
import { createTopic, testKafka } from './helpers/kafka-test-helpers';
import { readTopic, unique, waitUntil, type TopicReader } from '@ordering/testing';

let db: TestDatabase;
let kafka: Kafka;
let producer: Producer;
let deadLetters: TopicReader;
const runners: ConsumerRunner[] = [];

beforeAll(async () => {
  kafka = testKafka();
  producer = kafka.producer();
  await producer.connect();
  deadLetters = await readTopic(kafka, TOPICS.deadLetter, 'now');
  // One test drops its database connections on purpose: knex's complaints about it are expected.
  const quiet = () => {};
  db = await createTestDatabase({
    service: 'messaging',
    migrations: [outboxMigration, inboxMigration],
    logger: { warn: quiet, error: quiet, debug: quiet },
  });
  await db.knex.schema.createTable('effects', (t) => {
    t.increments('id');
    t.text('topic').notNullable();
    t.text('ref').notNullable();
    t.text('note');
  });
});

afterAll(async () => {
  await producer.disconnect();
  await deadLetters.stop();
  await db.drop();
});

afterEach(async () => {
  await Promise.all(runners.splice(0).map((r) => r.stop()));
});

/** A consumer of fresh topics, tuned for tests, started and joined. */
async function startConsumer(
  options: Partial<ConsumerOptions> & Pick<ConsumerOptions, 'topics'>,
): Promise<ConsumerRunner> {
  const runner = createConsumer({
    kafka,
    knex: db.knex,
    groupId: unique('test-group'),
    retry: { attempts: 3, initialMs: 10, maxMs: 50 },
    sessionTimeoutMs: 6000,
    heartbeatIntervalMs: 500,
    maxWaitTimeMs: 100,
    ...options,
  });
  runners.push(runner);
  await runner.start();
  await runner.waitForGroupJoin();
  return runner;
}

function orderEvent(orderId: string, note = ''): EventEnvelope {
  return newEvent({
    type: 'order.approved',
    cust_id: 'ACME',
    data: exampleOrder({ id: orderId, po_number: note }),
  });
}

async function send(topic: string, key: string, ...values: (string | object)[]): Promise<void> {
  await producer.send({
    topic,
    messages: values.map((v) => ({ key, value: typeof v === 'string' ? v : JSON.stringify(v) })),
  });
}

/** Records each applied order.approved event as a row of `effects`, in the consumer's transaction. */
const recordingHandlers = (topic: string): EventHandlers => ({
  'order.approved': async (event, { trx }) => {
    await trx('effects').insert({ topic, ref: event.data.id, note: event.data.po_number });
  },
});

const effectsOf = (topic: string) => db.knex('effects').where({ topic }).orderBy('id');

const deadLettersFrom = (topic: string) =>
  deadLetters.messages.filter((m) => m.headers[DEAD_LETTER_HEADERS.topic] === topic);

describe('the consumer runner', () => {
  it('applies a duplicate delivery of an event once', async () => {
    const topic = await createTopic(kafka);
    await startConsumer({ topics: [topic], handlers: recordingHandlers(topic) });
    const event = orderEvent('ord_dup', 'first');
    await send(topic, 'ord_dup', event, event, orderEvent('ord_dup', 'last'));

    await waitUntil(async () => (await effectsOf(topic)).length >= 2, 15_000, 'both events applied');
    expect((await effectsOf(topic)).map((e: { note: string }) => e.note)).toEqual(['first', 'last']);
  });

  it('dead-letters a message that is not JSON, an invalid envelope and invalid data, and goes on with the partition', async () => {
    const topic = await createTopic(kafka, 1);
    const groupId = unique('dlq-group');
    await startConsumer({ topics: [topic], groupId, handlers: recordingHandlers(topic) });
    const noCustomer: Record<string, unknown> = { ...orderEvent('ord_x') };
    delete noCustomer.cust_id;
    const badTotal = {
      ...orderEvent('ord_y'),
      data: { ...exampleOrder({ id: 'ord_y' }), total: { amount: 'ten', currency: 'USD' } },
    };
    await send(topic, 'k', '{"not json', noCustomer, badTotal, orderEvent('ord_after', 'behind them'));

    await waitUntil(
      async () => (await effectsOf(topic)).length === 1,
      15_000,
      'the event behind them applied',
    );
    expect((await effectsOf(topic))[0]).toMatchObject({ ref: 'ord_after', note: 'behind them' });
    await deadLetters.waitFor(() => deadLettersFrom(topic).length === 3);
    const letters = deadLettersFrom(topic);
    const described = letters.map((m) => ({ ...readDeadLetter(m.headers), value: m.value, key: m.key }));
    expect(described.map((d) => d.reason)).toEqual(['invalid_json', 'invalid_envelope', 'invalid_data']);
    expect(described.map((d) => d.offset)).toEqual(['0', '1', '2']);
    expect(described[0]).toMatchObject({
      topic,
      partition: 0,
      consumerGroup: groupId,
      value: '{"not json',
      key: 'k',
    });
    expect(described[1]!.error).toContain('cust_id');
    expect(described[2]!.error).toContain('data.total.amount');
  });

  it('retries a transient handler failure and applies the event once it succeeds', async () => {
    const topic = await createTopic(kafka);
    let calls = 0;
    await startConsumer({
      topics: [topic],
      handlers: {
        'order.approved': async (event, { trx }) => {
          await trx('effects').insert({ topic, ref: event.data.id, note: `call ${++calls}` });
          if (calls < 3) throw new Error('the stock service timed out');
        },
      },
    });
    await send(topic, 'ord_t', orderEvent('ord_t'));
    await waitUntil(async () => (await effectsOf(topic)).length > 0, 15_000, 'the event applied');
    // The failed attempts rolled back with their transaction: only the third one's effect is there.
    expect((await effectsOf(topic)).map((e: { note: string }) => e.note)).toEqual(['call 3']);
    expect(deadLettersFrom(topic)).toEqual([]);
  });

  it('retries through a lost database connection without giving up on the message', async () => {
    const topic = await createTopic(kafka);
    let calls = 0;
    await startConsumer({
      topics: [topic],
      retry: { attempts: 1, initialMs: 10, maxMs: 50 },
      handlers: {
        'order.approved': async (event, { trx }) => {
          calls++;
          // The database drops the connection under the first two attempts (as in a failover).
          if (calls <= 2) await trx.raw('select pg_terminate_backend(pg_backend_pid())');
          await trx('effects').insert({ topic, ref: event.data.id, note: `call ${calls}` });
        },
      },
    });
    await send(topic, 'ord_db', orderEvent('ord_db'));
    await waitUntil(async () => (await effectsOf(topic)).length > 0, 15_000, 'the event applied');
    expect((await effectsOf(topic)).map((e: { note: string }) => e.note)).toEqual(['call 3']);
    expect(deadLettersFrom(topic)).toEqual([]);
  });

  it('keeps retrying while the database is unreachable; stopping then leaves the message to the next consumer', async () => {
    const topic = await createTopic(kafka, 1);
    const groupId = unique('outage-group');
    let outageCalls = 0;
    const first = await startConsumer({
      topics: [topic],
      groupId,
      retry: { attempts: 2, initialMs: 10, maxMs: 20 },
      handlers: {
        'order.approved': async () => {
          outageCalls++;
          throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
        },
      },
    });
    await send(topic, 'ord_o', orderEvent('ord_o', 'after the outage'));
    await waitUntil(() => outageCalls >= 6, 15_000, 'several attempts, more than retry.attempts');
    const stopping = Date.now();
    await first.stop();
    expect(Date.now() - stopping).toBeLessThan(5000);
    expect(deadLettersFrom(topic)).toEqual([]);

    await startConsumer({ topics: [topic], groupId, handlers: recordingHandlers(topic) });
    await waitUntil(
      async () => (await effectsOf(topic)).length === 1,
      15_000,
      'applied once the database is back',
    );
    expect((await effectsOf(topic))[0]).toMatchObject({ ref: 'ord_o', note: 'after the outage' });
  });

  it('dead-letters at once on a PermanentError, and after the last attempt on other errors', async () => {
    const topic = await createTopic(kafka, 1);
    const calls: Record<string, number> = {};
    await startConsumer({
      topics: [topic],
      handlers: {
        'order.approved': async (event, { trx }) => {
          const id = event.data.id;
          calls[id] = (calls[id] ?? 0) + 1;
          if (id === 'ord_illegal') throw new PermanentError('illegal transition: delivered -> approved');
          if (id === 'ord_broken') throw new Error('handler bug');
          await trx('effects').insert({ topic, ref: id });
        },
      },
    });
    await send(topic, 'k', orderEvent('ord_illegal'), orderEvent('ord_broken'), orderEvent('ord_ok'));
    await waitUntil(async () => (await effectsOf(topic)).length === 1, 15_000, 'the good event applied');
    await deadLetters.waitFor(() => deadLettersFrom(topic).length === 2);
    const letters = deadLettersFrom(topic);
    expect(letters.map((m) => readDeadLetter(m.headers)).map((d) => [d!.reason, d!.error])).toEqual([
      ['permanent_error', 'illegal transition: delivered -> approved'],
      ['retries_exhausted', 'handler bug'],
    ]);
    expect(calls).toEqual({ ord_illegal: 1, ord_broken: 3, ord_ok: 1 });
  });

  it('skips event types it has no handler for', async () => {
    const topic = await createTopic(kafka, 1);
    await startConsumer({ topics: [topic], handlers: recordingHandlers(topic) });
    const delivered = newEvent({
      type: 'order.delivered',
      cust_id: 'ACME',
      data: exampleOrder({ id: 'ord_s' }),
    });
    await send(topic, 'k', delivered, orderEvent('ord_s', 'handled'));
    await waitUntil(async () => (await effectsOf(topic)).length === 1, 15_000, 'the handled event applied');
    expect(deadLettersFrom(topic)).toEqual([]);
    expect(await db.knex('processed_events').where({ event_id: delivered.id })).toEqual([]);
  });

  it('skips the events its filter refuses, without an inbox row', async () => {
    const topic = await createTopic(kafka, 1);
    await startConsumer({
      topics: [topic],
      handlers: recordingHandlers(topic),
      filters: { 'order.approved': (event) => event.data.po_number !== 'ignore me' },
    });
    const ignored = orderEvent('ord_f1', 'ignore me');
    await send(topic, 'k', ignored, orderEvent('ord_f2', 'wanted'));
    await waitUntil(async () => (await effectsOf(topic)).length === 1, 15_000, 'the wanted event applied');
    expect((await effectsOf(topic))[0]).toMatchObject({ ref: 'ord_f2', note: 'wanted' });
    expect(await db.knex('processed_events').where({ event_id: ignored.id })).toEqual([]);
  });

  it('consumes a non-envelope topic with its own schema and idempotency id', async () => {
    const topic = await createTopic(kafka, 1);
    await startConsumer({
      topics: [topic],
      topicHandlers: {
        [topic]: topicHandler({
          schema: FulfilmentUpdate,
          id: (u) => u.id,
          handle: async (u, { trx }) => {
            await trx('effects').insert({ topic, ref: u.order_id, note: u.status });
          },
        }),
      },
    });
    const update = {
      id: 'ful_1',
      order_id: 'ord_f',
      status: 'in_production',
      occurred_at: '2026-11-22T10:00:00Z',
    };
    const later = {
      id: 'ful_2',
      order_id: 'ord_f',
      status: 'delivered',
      occurred_at: '2026-11-25T10:00:00Z',
    };
    await send(topic, 'ord_f', update, { ...update, status: 'lost' }, update, later);
    await waitUntil(async () => (await effectsOf(topic)).length === 2, 15_000, 'both updates applied');
    expect((await effectsOf(topic)).map((e: { note: string }) => e.note)).toEqual([
      'in_production',
      'delivered',
    ]);
    await deadLetters.waitFor(() => deadLettersFrom(topic).length === 1);
    const [letter] = deadLettersFrom(topic);
    expect(readDeadLetter(letter!.headers)).toMatchObject({ reason: 'invalid_message', offset: '1' });
  });

  it('commits offsets once applied: a restarted consumer of the group does not apply them again', async () => {
    const topic = await createTopic(kafka, 1);
    const groupId = unique('restart-group');
    const first = await startConsumer({ topics: [topic], groupId, handlers: recordingHandlers(topic) });
    await send(topic, 'k', orderEvent('ord_r1', 'one'));
    await waitUntil(async () => (await effectsOf(topic)).length === 1, 15_000, 'first applied');
    await first.stop();

    await send(topic, 'k', orderEvent('ord_r2', 'two'));
    let seen = 0;
    await startConsumer({
      topics: [topic],
      groupId,
      handlers: {
        'order.approved': async (event, ctx) => {
          seen++;
          await recordingHandlers(topic)['order.approved']!(event, ctx);
        },
      },
    });
    await waitUntil(async () => (await effectsOf(topic)).length === 2, 15_000, 'second applied');
    expect(seen).toBe(1);
  });
  it('applies the messages fetched together in one transaction, in order, a duplicate once', async () => {
    const topic = await createTopic(kafka, 1);
    const first = orderEvent('ord_b1', 'one');
    // Sent before the consumer starts: its first fetch returns them together.
    await send(topic, 'k', first, orderEvent('ord_b2', 'two'), first, orderEvent('ord_b3', 'three'));
    await startConsumer({
      topics: [topic],
      handlers: {
        'order.approved': async (event, { trx }) => {
          const { rows } = await trx.raw<{ rows: { txid: string }[] }>('select txid_current()::text as txid');
          await trx('effects').insert({ topic, ref: event.data.po_number, note: rows[0]!.txid });
        },
      },
    });
    await waitUntil(async () => (await effectsOf(topic)).length >= 3, 15_000, 'the batch applied');
    const effects: { ref: string; note: string }[] = await effectsOf(topic);
    expect(effects.map((e) => e.ref)).toEqual(['one', 'two', 'three']);
    expect(new Set(effects.map((e) => e.note)).size).toBe(1);
  });

  it('with fetchMinBytes, applies messages sent one by one while it waits in one fetch and one transaction', async () => {
    const topic = await createTopic(kafka, 1);
    await startConsumer({
      topics: [topic],
      // The broker holds each fetch until 1 MiB is there or 3 s have passed.
      fetchMinBytes: 1024 * 1024,
      maxWaitTimeMs: 3000,
      handlers: {
        'order.approved': async (event, { trx }) => {
          const { rows } = await trx.raw<{ rows: { txid: string }[] }>('select txid_current()::text as txid');
          await trx('effects').insert({ topic, ref: event.data.po_number, note: rows[0]!.txid });
        },
      },
    });
    // Each its own produce request, 50 ms apart: with the default (answer at once) the first one
    // would end the fetch waiting for it and be applied alone.
    for (const note of ['one', 'two', 'three', 'four']) {
      await send(topic, 'k', orderEvent(`ord_w_${note}`, note));
      await new Promise((r) => setTimeout(r, 50));
    }
    await waitUntil(async () => (await effectsOf(topic)).length >= 4, 15_000, 'the batch applied');
    const effects: { ref: string; note: string }[] = await effectsOf(topic);
    expect(effects.map((e) => e.ref)).toEqual(['one', 'two', 'three', 'four']);
    expect(new Set(effects.map((e) => e.note)).size).toBe(1);
  });

  it("applies a batch's other messages once each when one of them fails, and dead-letters that one", async () => {
    const topic = await createTopic(kafka, 1);
    const calls: Record<string, number> = {};
    await send(
      topic,
      'k',
      orderEvent('ord_m1'),
      orderEvent('ord_illegal'),
      orderEvent('ord_m2'),
      orderEvent('ord_broken'),
      orderEvent('ord_m3'),
    );
    await startConsumer({
      topics: [topic],
      handlers: {
        'order.approved': async (event, { trx }) => {
          const id = event.data.id;
          calls[id] = (calls[id] ?? 0) + 1;
          await trx('effects').insert({ topic, ref: id });
          if (id === 'ord_illegal') throw new PermanentError('illegal transition');
          if (id === 'ord_broken') throw new Error('handler bug');
        },
      },
    });
    await deadLetters.waitFor(() => deadLettersFrom(topic).length === 2);
    await waitUntil(async () => (await effectsOf(topic)).length === 3, 15_000, 'the good events applied');
    expect((await effectsOf(topic)).map((e: { ref: string }) => e.ref)).toEqual([
      'ord_m1',
      'ord_m2',
      'ord_m3',
    ]);
    expect(deadLettersFrom(topic).map((m) => readDeadLetter(m.headers)!.reason)).toEqual([
      'permanent_error',
      'retries_exhausted',
    ]);
    // The failing ones get exactly the attempts they would get alone.
    expect(calls).toMatchObject({ ord_illegal: 1, ord_broken: 3 });
  });

  it("the runbook's re-read of a dead letter: its group, reset to the dead letter's offset, applies it once fixed and skips what it had applied", async () => {
    const topic = await createTopic(kafka, 1);
    const groupId = unique('reread-group');
    let fixed = false;
    const handlers: EventHandlers = {
      'order.approved': async (event, { trx }) => {
        if (event.data.id === 'ord_bug' && !fixed) throw new Error('handler bug');
        await trx('effects').insert({ topic, ref: event.data.id });
      },
    };
    await send(topic, 'k', orderEvent('ord_r1'), orderEvent('ord_bug'), orderEvent('ord_r2'));
    const first = await startConsumer({ topics: [topic], groupId, handlers });
    await deadLetters.waitFor(() => deadLettersFrom(topic).length === 1);
    await waitUntil(async () => (await effectsOf(topic)).length === 2, 15_000, 'the good events applied');
    const letter = readDeadLetter(deadLettersFrom(topic)[0]!.headers)!;
    expect(letter).toMatchObject({ consumerGroup: groupId, reason: 'retries_exhausted', offset: '1' });

    // The service stopped (a group's offsets move only without members), the group moved back to
    // the dead letter's offset (kafka-consumer-groups.sh --reset-offsets --to-offset), the fix deployed.
    await first.stop();
    const admin = kafka.admin();
    await admin.connect();
    try {
      await admin.setOffsets({
        groupId,
        topic: letter.topic,
        partitions: [{ partition: letter.partition, offset: letter.offset }],
      });
    } finally {
      await admin.disconnect();
    }
    fixed = true;
    await startConsumer({ topics: [topic], groupId, handlers });

    await waitUntil(async () => (await effectsOf(topic)).length === 3, 15_000, 'the dead letter applied');
    await new Promise((r) => setTimeout(r, 500));
    expect((await effectsOf(topic)).map((e: { ref: string }) => e.ref)).toEqual([
      'ord_r1',
      'ord_r2',
      'ord_bug',
    ]);
  });

  it('runs the work a handler gives beforeCommit once per transaction, after its last handler, in it', async () => {
    const topic = await createTopic(kafka, 1);
    await send(
      topic,
      'k',
      orderEvent('ord_g1', 'one'),
      orderEvent('ord_g2', 'two'),
      orderEvent('ord_g3', 'three'),
    );
    const gathered = new Map<unknown, string[]>();
    await startConsumer({
      topics: [topic],
      handlers: {
        'order.approved': async (event, { trx, beforeCommit }) => {
          let refs = gathered.get(trx);
          if (!refs) {
            const mine: string[] = [];
            refs = mine;
            gathered.set(trx, mine);
            beforeCommit(async () => {
              const { rows } = await trx.raw<{ rows: { txid: string }[] }>(
                'select txid_current()::text as txid',
              );
              await trx('effects').insert(mine.map((ref) => ({ topic, ref, note: rows[0]!.txid })));
            });
          }
          refs.push(event.data.po_number ?? '');
        },
      },
    });
    await waitUntil(async () => (await effectsOf(topic)).length >= 3, 15_000, 'the batch applied');
    const effects: { ref: string; note: string }[] = await effectsOf(topic);
    expect(effects.map((e) => e.ref)).toEqual(['one', 'two', 'three']);
    expect(new Set(effects.map((e) => e.note)).size).toBe(1);
  });

  it('applies the messages one by one when the beforeCommit work of their transaction fails, dead-lettering the bad one', async () => {
    const topic = await createTopic(kafka, 1);
    await send(
      topic,
      'k',
      orderEvent('ord_h1', 'good'),
      orderEvent('ord_h2', 'bad'),
      orderEvent('ord_h3', 'fine'),
    );
    await startConsumer({
      topics: [topic],
      handlers: {
        'order.approved': async (event, { trx, beforeCommit }) => {
          const note = event.data.po_number ?? '';
          beforeCommit(async () => {
            if (note === 'bad') throw new PermanentError('cannot write this one');
            await trx('effects').insert({ topic, ref: note });
          });
        },
      },
    });
    await deadLetters.waitFor(() => deadLettersFrom(topic).length === 1);
    await waitUntil(async () => (await effectsOf(topic)).length === 2, 15_000, 'the good events applied');
    expect((await effectsOf(topic)).map((e: { ref: string }) => e.ref)).toEqual(['good', 'fine']);
    expect(readDeadLetter(deadLettersFrom(topic)[0]!.headers)!.reason).toBe('permanent_error');
  });
});
