// Benchmark, not a test: webhook deliveries per second to a local receiver, and the time from an
// event's commit (its publication on Kafka) to its delivery at half that rate, with the receiver's
// own ceiling measured in the same run. The webhooks and customers services run as their own
// processes (the built bundles, telemetry loaded, LOG_LEVEL=info) on fresh databases and the test
// Kafka broker; the receiver is a keep-alive node:http server in this process.
//
//   pnpm run build            (the bundles in dist/)
//   node --import tsx test-e2e/bench/webhook-delivery.ts   [SUBS=10 EVENTS=3000 LATENCY_SECONDS=20]
//
// Each event (user.created) goes to SUBS subscriptions of one account, so deliveries = events x SUBS.
// The one development setting on: WEBHOOKS_ALLOW_LOCAL_HTTP (the receiver is http://127.0.0.1).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomBytes, randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { Kafka, logLevel } from 'kafkajs';
import { TOPICS, exampleUser, newEvent } from '@ordering/contracts';
import { CustomersAdminClient, migrations as customersMigrations } from '@ordering/customers-service';
import { signIdentity } from '@ordering/http';
import { createTestDatabase, startTestKafka, stopTestKafka, type TestDatabase } from '@ordering/testing';
import { migrations as webhooksMigrations } from '@ordering/webhooks-service';
import { startServiceProcess, type ServiceProcess } from '../support/service-process';

const SUBS = Number(process.env.SUBS ?? 10);
const EVENTS = Number(process.env.EVENTS ?? 3000);
const LATENCY_SECONDS = Number(process.env.LATENCY_SECONDS ?? 20);
const secret = randomBytes(32).toString('hex');
const custId = `WHBENCH-${randomBytes(3).toString('hex').toUpperCase()}`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;

interface ReceiverStats {
  count: number;
  first: number;
  last: number;
  latencies: number[] | undefined;
}

function startReceiver(): Promise<{ url: string; stats: ReceiverStats; server: http.Server }> {
  const stats: ReceiverStats = { count: 0, first: 0, last: 0, latencies: undefined };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const now = Date.now();
      if (stats.count === 0) stats.first = now;
      stats.count++;
      stats.last = now;
      if (stats.latencies && req.headers['service-event']) {
        const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { created_at: string };
        stats.latencies.push(now - Date.parse(event.created_at));
      }
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end('ok');
    });
  });
  server.keepAliveTimeout = 60_000;
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, stats, server }),
    ),
  );
}

/** The receiver alone: POSTs of a delivery-sized body over 64 keep-alive connections for 5 s. */
async function receiverCeiling(url: string, stats: ReceiverStats): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const body = JSON.stringify(newEvent({ type: 'user.created', cust_id: custId, data: exampleUser() }));
  const post = () =>
    new Promise<void>((resolve, reject) => {
      const req = http.request(
        `${url}/ceiling`,
        {
          method: 'POST',
          agent,
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
        },
        (res) => {
          res.resume();
          res.on('end', resolve);
        },
      );
      req.on('error', reject);
      req.end(body);
    });
  const start = stats.count;
  const until = performance.now() + 5000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: 64 }, async () => {
      while (performance.now() < until) await post();
    }),
  );
  const rate = (stats.count - start) / ((performance.now() - started) / 1000);
  agent.destroy();
  return rate;
}

async function main(): Promise<void> {
  const kafka = await startTestKafka();
  const brokers = kafka.brokers.join(',');
  const dbs: TestDatabase[] = [];
  const processes: ServiceProcess[] = [];
  const receiver = await startReceiver();
  try {
    const customersDb = await createTestDatabase({ service: 'customers', migrations: customersMigrations });
    const webhooksDb = await createTestDatabase({
      service: 'webhooks',
      migrations: webhooksMigrations,
      poolMax: 2,
    });
    dbs.push(customersDb, webhooksDb);
    const common = {
      KAFKA_BROKERS: brokers,
      INTERNAL_IDENTITY_SECRET: secret,
      LOG_LEVEL: 'info',
      NODE_ENV: 'development',
    };
    const customers = await startServiceProcess('services/customers', {
      ...common,
      DATABASE_URL: customersDb.url,
    });
    processes.push(customers);
    const webhooks = await startServiceProcess('services/webhooks', {
      ...common,
      DATABASE_URL: webhooksDb.url,
      DATABASE_POOL_MAX: '10',
      CUSTOMERS_URL: customers.url,
      KAFKA_GROUP_ID: `webhooks-bench-${randomUUID()}`,
      KAFKA_FROM_BEGINNING: 'false',
      WEBHOOKS_ALLOW_LOCAL_HTTP: 'true',
    });
    processes.push(webhooks);

    const admin = new CustomersAdminClient({ baseUrl: customers.url, internalIdentitySecret: secret });
    await admin.createCustomer({ cust_id: custId, name: 'Webhooks bench', currency: 'USD' });
    const identity = () =>
      signIdentity(
        {
          sub: 'shopper:bench:admin',
          cust_id: custId,
          login: 'admin',
          client_id: 'bench',
          scopes: ['admin:all'],
          jti: randomUUID(),
          exp: Math.floor(Date.now() / 1000) + 600,
        },
        secret,
      );
    for (let i = 0; i < SUBS; i++) {
      const res = await fetch(`${webhooks.url}/v1/webhooks`, {
        method: 'POST',
        headers: { 'X-Ordering-Identity': identity(), 'Content-Type': 'application/json' },
        body: JSON.stringify({ url: `${receiver.url}/s${i}`, events: ['user.created'] }),
      });
      if (res.status !== 201) throw new Error(`subscription: ${res.status} ${await res.text()}`);
    }

    const producer = new Kafka({
      clientId: 'webhooks-bench',
      brokers: kafka.brokers,
      logLevel: logLevel.NOTHING,
    }).producer();
    await producer.connect();
    const message = () => {
      const login = `u${randomBytes(6).toString('hex')}`;
      const event = newEvent({
        type: 'user.created',
        cust_id: custId,
        data: exampleUser({ login, id: login, cust_id: custId }),
      });
      return { key: login, value: JSON.stringify(event) };
    };
    const publish = async (n: number) => {
      for (let sent = 0; sent < n; sent += 500) {
        await producer.send({
          topic: TOPICS.users,
          messages: Array.from({ length: Math.min(500, n - sent) }, message),
        });
      }
    };
    const drain = async (expected: number, timeoutMs: number) => {
      const deadline = Date.now() + timeoutMs;
      while (receiver.stats.count < expected && Date.now() < deadline) await sleep(50);
      if (receiver.stats.count < expected)
        throw new Error(`only ${receiver.stats.count} of ${expected} deliveries arrived`);
    };

    // Warm-up (connections, caches, JIT).
    await publish(100);
    await drain(100 * SUBS, 60_000);
    await sleep(500);

    // 1. The receiver's own ceiling.
    const ceiling = await receiverCeiling(receiver.url, receiver.stats);

    // 2. Throughput: EVENTS events at once, EVENTS x SUBS deliveries; rate from first to last arrival.
    receiver.stats.count = 0;
    await publish(EVENTS);
    // Progress (VERBOSE=1): deliveries written by the consumer vs delivered, each second.
    const progress = process.env.VERBOSE
      ? setInterval(() => {
          void webhooksDb
            .knex('webhook_deliveries')
            .count({ n: '*' })
            .then(([row]) => console.log(`  written ${String(row?.n)}  delivered ${receiver.stats.count}`));
        }, 1000)
      : undefined;
    await drain(EVENTS * SUBS, 300_000);
    clearInterval(progress);
    const throughput = (EVENTS * SUBS) / ((receiver.stats.last - receiver.stats.first) / 1000);

    // 3. Latency at half that rate: events paced every 10 ms for LATENCY_SECONDS.
    await sleep(1000);
    receiver.stats.count = 0;
    receiver.stats.latencies = [];
    const eventsPerSecond = throughput / 2 / SUBS;
    const started = performance.now();
    let published = 0;
    while (performance.now() - started < LATENCY_SECONDS * 1000) {
      const due = Math.floor(((performance.now() - started) / 1000) * eventsPerSecond);
      if (due > published) {
        await producer.send({
          topic: TOPICS.users,
          messages: Array.from({ length: due - published }, message),
        });
        published = due;
      }
      await sleep(10);
    }
    await drain(published * SUBS, 60_000);
    const latencies = receiver.stats.latencies.sort((a, b) => a - b);
    await producer.disconnect();

    const cores = (await import('node:os')).cpus().length;
    console.log(
      `\nWebhook delivery benchmark (${cores} cores; ${SUBS} subscriptions per event; one webhooks process)`,
    );
    console.log(`  receiver ceiling (node:http alone, 64 connections): ${Math.round(ceiling)} requests/s`);
    console.log(
      `  deliveries/s (${EVENTS} events -> ${EVENTS * SUBS} signed deliveries):   ${Math.round(throughput)} /s`,
    );
    console.log(
      `  commit-to-delivery at half load (${Math.round(throughput / 2)} deliveries/s, ${latencies.length} deliveries):`,
    );
    console.log(
      `    p50 ${percentile(latencies, 50)} ms   p99 ${percentile(latencies, 99)} ms   max ${latencies[latencies.length - 1]} ms`,
    );
    console.log(
      `  deliveries/s as a share of the receiver's ceiling: ${Math.round((throughput / ceiling) * 100)} %`,
    );
  } finally {
    for (const p of processes.reverse()) await p.stop().catch(() => undefined);
    receiver.server.closeAllConnections();
    receiver.server.close();
    for (const db of dbs) await db.drop().catch(() => undefined);
    if (kafka.started) await stopTestKafka().catch(() => undefined);
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
