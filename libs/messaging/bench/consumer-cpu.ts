// CPU per consumed event of the consumer runner (this process and its PostgreSQL backends, read
// from /proc), one message per transaction against the batched default, in the same run so both
// see the same machine. Events are order events as the orders service writes them; the handler
// does what the webhooks fan-out does per event (one insert of the event, one read). Two feeds: a
// backlog (every event waiting when the consumer starts) and a paced feed (events arriving at
// BENCH_RATE a second while the consumer runs, as under the orders benchmark).
//
//   KAFKA_BROKERS=127.0.0.1:19092 pnpm --filter @ordering/messaging bench   [BENCH_EVENTS=2000 BENCH_RATE=300]
// Needs a running broker (./dev up's, or the test broker) and PostgreSQL; prints figures.
import fs from 'node:fs';
import { exampleOrder, newEvent } from '@ordering/contracts';
import { createTestDatabase, processCpuMs, unique, waitUntil } from '@ordering/testing';
import { createConsumer, createKafka, inboxMigration, outboxMigration } from '../src';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 2000);
const RATE = Number(process.env.BENCH_RATE ?? 300);
const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:19092').split(',');

async function main(): Promise<void> {
  const kafka = createKafka({ clientId: unique('consumer-bench'), brokers });
  const db = await createTestDatabase({ service: 'msgbench', migrations: [outboxMigration, inboxMigration] });
  await db.knex.schema.createTable('recorded', (t) => {
    t.text('event_id').primary();
    t.text('cust_id').notNullable();
    t.jsonb('payload').notNullable();
  });
  const producer = kafka.producer();
  await producer.connect();
  const admin = kafka.admin();
  await admin.connect();

  const events = Array.from({ length: EVENTS }, (_, i) =>
    newEvent({ type: 'order.approved', cust_id: 'ACME', data: exampleOrder({ id: `ord_${i}` }) }),
  );
  const publish = (topic: string, from: number, to: number) =>
    producer.send({
      topic,
      messages: events.slice(from, to).map((e) => ({
        key: e.data.id,
        value: JSON.stringify(e),
        headers: { 'event-id': e.id, 'event-type': e.type },
      })),
    });

  /** CPU so far of each PostgreSQL backend connected to the bench database (by pid). */
  const backendCpu = async () => {
    const { rows } = await db.knex.raw<{ rows: { pid: number }[] }>(
      'select pid from pg_stat_activity where datname = current_database()',
    );
    return new Map(rows.map((r) => [r.pid, processCpuMs(r.pid)]));
  };

  async function measure(label: string, perTransaction: number, paced: boolean): Promise<void> {
    const topic = unique('bench.consumer');
    await admin.createTopics({ topics: [{ topic, numPartitions: 3 }], waitForLeaders: true });
    if (!paced) for (let i = 0; i < EVENTS; i += 500) await publish(topic, i, Math.min(EVENTS, i + 500));
    const consumer = createConsumer({
      kafka,
      knex: db.knex,
      groupId: unique('bench-group'),
      topics: [topic],
      maxWaitTimeMs: 100,
      maxMessagesPerTransaction: perTransaction,
      handlers: {
        'order.approved': async (event, { trx }) => {
          await trx('recorded').insert({
            event_id: event.id,
            cust_id: event.cust_id,
            payload: JSON.stringify(event),
          });
          await trx('recorded').where({ cust_id: event.cust_id }).first('event_id');
        },
      },
    });
    await db.knex('recorded').delete();
    const pg0 = await backendCpu();
    const own0 = process.cpuUsage();
    const started = Date.now();
    await consumer.start();
    await consumer.waitForGroupJoin();
    if (paced) {
      const step = Math.max(1, Math.round(RATE / 20));
      for (let i = 0; i < EVENTS; i += step) {
        await publish(topic, i, Math.min(EVENTS, i + step));
        await new Promise((r) =>
          setTimeout(r, Math.max(0, started + ((i + step) / RATE) * 1000 - Date.now())),
        );
      }
    }
    await waitUntil(
      async () => Number((await db.knex('recorded').count({ n: '*' }))[0]!.n) >= EVENTS,
      120_000,
      'every event consumed',
    );
    const own = process.cpuUsage(own0);
    const pg1 = await backendCpu();
    let pg = 0;
    for (const [pid, ms] of pg1) pg += ms - (pg0.get(pid) ?? 0);
    const ms = Date.now() - started;
    await consumer.stop();
    const line = (own.user + own.system) / 1000 / EVENTS;
    console.log(
      `${label.padEnd(34)} node ${line.toFixed(3)} ms/event, postgres ${(pg / EVENTS).toFixed(3)} ms/event, ${((EVENTS / ms) * 1000).toFixed(0)} events/s`,
    );
  }

  const load = () => fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  console.log(`${EVENTS} order events, 3 partitions; load average ${load()}`);
  for (let round = 0; round < 2; round++) {
    await measure('backlog, one per transaction', 1, false);
    await measure('backlog, batched', 100, false);
    await measure(`paced ${RATE}/s, one per transaction`, 1, true);
    await measure(`paced ${RATE}/s, batched`, 100, true);
  }
  console.log(`load average ${load()}`);
  await admin.disconnect();
  await producer.disconnect();
  await db.drop();
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
