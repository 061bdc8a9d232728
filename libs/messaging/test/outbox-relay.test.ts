import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { Kafka } from 'kafkajs';
import {
  EventValidationError,
  TOPICS,
  exampleOrder,
  newEvent,
  parseEvent,
  type EventEnvelope,
} from '@ordering/contracts';
import { createTestDatabase, type TestDatabase } from '@ordering/testing';
import {
  enqueueEvent,
  enqueueEvents,
  enqueueMessage,
  inboxMigration,
  OutboxRelay,
  outboxMigration,
  OUTBOX_TABLE,
} from '../src';
import { BROKERS, recordingLogger, testKafka } from './helpers/kafka-test-helpers';
import { readTopic, unique, waitUntil, type TopicReader } from '@ordering/testing';

const migrations = [outboxMigration, inboxMigration];

let db: TestDatabase;
let kafka: Kafka;
let reader: TopicReader;
const relays: OutboxRelay[] = [];
const children: ChildProcess[] = [];

beforeAll(async () => {
  kafka = testKafka();
});

beforeEach(async () => {
  db = await createTestDatabase({ service: 'messaging', migrations });
  reader = await readTopic(kafka, TOPICS.orders, 'now');
});

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
  await Promise.all(relays.splice(0).map((r) => r.stop()));
  await reader.stop();
  await db.drop();
});

function relay(options: Partial<ConstructorParameters<typeof OutboxRelay>[0]> = {}): OutboxRelay {
  const r = new OutboxRelay({
    knex: db.knex,
    kafka,
    pollIntervalMs: 100,
    backoff: { initialMs: 20, maxMs: 200 },
    ...options,
  });
  relays.push(r);
  return r;
}

function orderEvent(orderId: string, seq = 0): EventEnvelope {
  return newEvent({
    type: 'order.approved',
    cust_id: 'ACME',
    data: exampleOrder({ id: orderId, po_number: String(seq) }),
  });
}

const withKey = (key: string) => (m: { key: string | null }) => m.key === key;

describe('the transactional outbox', () => {
  it('publishes an event committed with the state change, in the envelope of the spec, keyed by order id', async () => {
    const orderId = unique('ord');
    const event = orderEvent(orderId);
    await db.knex.transaction((trx) => enqueueEvent(trx, event));
    await relay().flush();

    const [message] = (await reader.waitFor((ms) => ms.some(withKey(orderId)))).filter(withKey(orderId));
    const body = JSON.parse(message!.value!) as Record<string, unknown>;
    expect(Object.keys(body)).toEqual([
      'id',
      'object',
      'type',
      'created_at',
      'cust_id',
      'api_version',
      'data',
    ]);
    expect(parseEvent(body)).toEqual(event);
    expect(message!.headers).toMatchObject({
      'event-id': event.id,
      'event-type': 'order.approved',
      'content-type': 'application/json',
    });
    const row = await db.knex(OUTBOX_TABLE).where({ event_id: event.id }).first();
    expect(row.published_at).not.toBeNull();
  });

  it('publishes each event as the text written, to the byte, whatever the shapes of its objects', async () => {
    const orderId = unique('ord');
    const cancelled = (seq: number, reason: string | null) =>
      newEvent({
        type: 'order.approved',
        cust_id: 'ACME',
        data: exampleOrder({
          id: orderId,
          po_number: String(seq),
          cancelled_at: '2026-01-02T03:04:05.000Z',
          cancellation: { cancelled_by: { login: 'ann', name: 'Ann', extra: 1 }, reason } as never,
        }),
      });
    // jsonb keeps its own field order: the relay publishes the spec's, the order written.
    const events = [orderEvent(orderId, 1), cancelled(2, 'late'), orderEvent(orderId, 3), cancelled(4, null)];
    await db.knex.transaction((trx) => enqueueEvents(trx, events));
    await relay().flush();

    const ofOrder = (await reader.waitFor((ms) => ms.filter(withKey(orderId)).length >= 4)).filter(
      withKey(orderId),
    );
    expect(ofOrder.map((m) => m.value)).toEqual(events.map((e) => JSON.stringify(e)));
  });

  it('publishes nothing for a rolled-back transaction', async () => {
    const orderId = unique('ord');
    const rolledBack = orderEvent(orderId, 1);
    await expect(
      db.knex.transaction(async (trx) => {
        await enqueueEvent(trx, rolledBack);
        throw new Error('the use case failed after enqueueing');
      }),
    ).rejects.toThrow('the use case failed');
    // A later committed event of the same order: once it is on the topic, the first would be too.
    const committed = orderEvent(orderId, 2);
    await db.knex.transaction((trx) => enqueueEvent(trx, committed));
    await relay().flush();

    const ofOrder = (await reader.waitFor((ms) => ms.some(withKey(orderId)))).filter(withKey(orderId));
    expect(ofOrder.map((m) => m.headers['event-id'])).toEqual([committed.id]);
  });

  it('refuses an invalid event before writing anything (a bug in the caller)', async () => {
    const bad = {
      ...orderEvent(unique('ord')),
      data: { ...exampleOrder(), total: { amount: 'lots', currency: 'USD' } },
    };
    await expect(
      db.knex.transaction((trx) => enqueueEvent(trx, bad as unknown as EventEnvelope)),
    ).rejects.toThrow(EventValidationError);
    await expect(
      db.knex.transaction((trx) => enqueueEvent(trx, bad as unknown as EventEnvelope)),
    ).rejects.toThrow(/data\.total\.amount/);
    expect(await db.knex(OUTBOX_TABLE).count({ n: '*' })).toEqual([{ n: '0' }]);
  });

  it('publishes a non-envelope message (an auth revocation) as given, once per id', async () => {
    const jti = unique('jti');
    const revocation = { type: 'token.revoked', jti, exp: 1_900_000_000 };
    const message = {
      topic: TOPICS.auth,
      key: `token.revoked:${jti}`,
      id: `token.revoked:${jti}`,
      type: 'token.revoked',
      value: revocation,
    };
    const authReader = await readTopic(kafka, TOPICS.auth, 'now');
    try {
      await db.knex.transaction((trx) => enqueueMessage(trx, message));
      await enqueueMessage(db.knex, message, { ignoreDuplicate: true });
      await expect(enqueueMessage(db.knex, message)).rejects.toThrow(/duplicate key/);
      await relay().flush();
      const [received, ...more] = (await authReader.waitFor((ms) => ms.some(withKey(message.key)))).filter(
        withKey(message.key),
      );
      expect(JSON.parse(received!.value!)).toEqual(revocation);
      expect(received!.headers).toMatchObject({ 'event-id': message.id, 'event-type': 'token.revoked' });
      expect(more).toEqual([]);
    } finally {
      await authReader.stop();
    }
  });

  it('keeps per-key order across many events and two relay replicas', async () => {
    const keys = [unique('ord'), unique('ord'), unique('ord')];
    const perKey = 30;
    relay({ name: 'replica-a' });
    relay({ name: 'replica-b' });
    await Promise.all(relays.map((r) => r.start()));
    // Interleaved writers: some transactions hold one event, some several of one order.
    for (let seq = 0; seq < perKey; seq += 3) {
      await Promise.all(
        keys.map((key) =>
          db.knex.transaction(async (trx) => {
            await enqueueEvent(trx, orderEvent(key, seq));
            await enqueueEvents(trx, [orderEvent(key, seq + 1), orderEvent(key, seq + 2)]);
          }),
        ),
      );
    }
    const all = await reader.waitFor(
      (ms) => keys.every((k) => ms.filter(withKey(k)).length >= perKey),
      30_000,
    );
    for (const key of keys) {
      const seqs = all
        .filter(withKey(key))
        .map((m) => Number((JSON.parse(m.value!) as { data: { po_number: string } }).data.po_number));
      const firstSeen = seqs.filter((s, i) => seqs.indexOf(s) === i);
      expect(firstSeen).toEqual(Array.from({ length: perKey }, (_, i) => i));
      expect(new Set(all.filter(withKey(key)).map((m) => m.partition)).size).toBe(1);
    }
  });

  it('wakes on the outbox notification, without waiting for its poll', async () => {
    const r = relay({ pollIntervalMs: 60_000 });
    await r.start();
    // Let the first (empty) round end so that the relay sleeps on its long poll.
    await new Promise((resolve) => setTimeout(resolve, 200));
    const orderId = unique('ord');
    const started = Date.now();
    await db.knex.transaction((trx) => enqueueEvent(trx, orderEvent(orderId)));
    await reader.waitFor((ms) => ms.some(withKey(orderId)), 5_000);
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('backs off while Kafka is unreachable and catches up once it is back', async () => {
    let brokers = ['127.0.0.1:1'];
    const logger = recordingLogger();
    const r = relay({ kafka: testKafka(() => brokers), logger });
    await r.start();
    const orderId = unique('ord');
    const event = orderEvent(orderId);
    await db.knex.transaction((trx) => enqueueEvent(trx, event));

    await waitUntil(
      () => logger.entries.filter((e) => e.level === 'warn').length >= 2,
      15_000,
      'two failed rounds',
    );
    const pending = await db.knex(OUTBOX_TABLE).where({ event_id: event.id }).first();
    expect(pending.published_at).toBeNull();

    brokers = BROKERS;
    const ofOrder = (await reader.waitFor((ms) => ms.some(withKey(orderId)), 20_000)).filter(
      withKey(orderId),
    );
    expect(ofOrder[0]!.headers['event-id']).toBe(event.id);
    await waitUntil(
      async () => (await db.knex(OUTBOX_TABLE).where({ event_id: event.id }).first()).published_at !== null,
    );
  });

  it('publishes, exactly once, an event committed by a process killed before its relay could publish', async () => {
    const orderId = unique('ord');
    // Node itself with tsx's loader (not the tsx CLI, whose child would survive the SIGKILL).
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(__dirname, 'fixtures', 'commit-then-wait.ts'), db.url, orderId],
      {
        cwd: path.resolve(__dirname, '..', '..', '..'),
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    children.push(child);
    const eventId = await new Promise<string>((resolve, reject) => {
      let out = '';
      child.stdout.on('data', (c: Buffer) => {
        out += c.toString();
        const m = /committed (\S+)/.exec(out);
        if (m) resolve(m[1]!);
      });
      child.on('exit', (code) => reject(new Error(`fixture exited early (${code})`)));
    });
    const exited = new Promise((resolve) => child.on('exit', resolve));
    child.kill('SIGKILL');
    await exited;
    expect((await db.knex(OUTBOX_TABLE).where({ event_id: eventId }).first()).published_at).toBeNull();

    const r = relay();
    await r.start();
    await r.flush();
    // Another committed event of the same order behind it marks the end of what was published.
    const sentinel = orderEvent(orderId, 1);
    await db.knex.transaction((trx) => enqueueEvent(trx, sentinel));
    await r.flush();
    const ofOrder = (
      await reader.waitFor((ms) => ms.some((m) => m.headers['event-id'] === sentinel.id))
    ).filter(withKey(orderId));
    expect(ofOrder.map((m) => m.headers['event-id'])).toEqual([eventId, sentinel.id]);
  });

  it('purges published rows past the retention period and keeps unpublished ones', async () => {
    const r = relay({ retentionMs: 0 });
    const published = orderEvent(unique('ord'));
    await db.knex.transaction((trx) => enqueueEvent(trx, published));
    await r.flush();
    const unpublished = orderEvent(unique('ord'));
    await db.knex.transaction((trx) => enqueueEvent(trx, unpublished));

    expect(await r.purge()).toBe(1);
    const left = await db.knex(OUTBOX_TABLE).select('event_id');
    expect(left).toEqual([{ event_id: unpublished.id }]);
    await r.flush();
    expect(await relay({ retentionMs: 3600_000 }).purge()).toBe(0);
    expect(await db.knex(OUTBOX_TABLE).count({ n: '*' })).toEqual([{ n: '1' }]);
  });

  it('stop() publishes what was committed before it', async () => {
    const r = relay({ pollIntervalMs: 60_000 });
    await r.start();
    const orderId = unique('ord');
    const event = orderEvent(orderId);
    await db.knex.transaction((trx) => enqueueEvent(trx, event));
    await r.stop();
    expect((await db.knex(OUTBOX_TABLE).where({ event_id: event.id }).first()).published_at).not.toBeNull();
    await reader.waitFor((ms) => ms.some(withKey(orderId)));
  });
});
