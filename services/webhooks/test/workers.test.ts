// Several delivery workers on one database (the service scaled out): no delivery is sent by two at
// once, and a worker killed with SIGKILL in the middle of a delivery loses nothing: once its lease
// runs out another worker sends it, with the same Service-Delivery id.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import { signIdentity } from '@ordering/http';
import { createTestDatabase, waitUntil, type TestDatabase } from '@ordering/testing';
import { migrations } from '../src';
import { disconnectProducer, startHarness } from './support/harness';
import { type Receiver, startReceiver } from './support/receiver';

let receiver: Receiver;
let db: TestDatabase;

// Two services and a child process on a shared 2-core machine: room to start them.
jest.setTimeout(120_000);

beforeAll(async () => {
  receiver = await startReceiver();
  db = await createTestDatabase({ service: 'webhooks', migrations, poolMax: 10 });
});
afterAll(async () => {
  await receiver?.close();
  await db?.drop();
  await disconnectProducer();
});

it('two workers share the deliveries and never send one twice', async () => {
  const sent = { a: 0, b: 0 };
  const a = await startHarness({ db, service: { onAttempt: () => sent.a++ } });
  const b = await startHarness({ db, service: { onAttempt: () => sent.b++ } });
  try {
    const inFlight = new Map<string, number>();
    let overlapped = 0;
    receiver.on('/shared', (req) => {
      const id = String(req.headers['service-delivery']);
      const n = (inFlight.get(id) ?? 0) + 1;
      if (n > 1) overlapped++;
      inFlight.set(id, n);
      setTimeout(() => inFlight.set(id, (inFlight.get(id) ?? 1) - 1), 30);
      return { status: 200, delayMs: 30 };
    });
    const subs: string[] = [];
    for (let i = 0; i < 4; i++) {
      subs.push(
        (await a.api(a.P).post('/v1/webhooks', { url: receiver.url('/shared'), events: ['user.created'] }))
          .body.id,
      );
    }
    const total = 200;
    await Promise.all(
      Array.from({ length: total }, (_, i) =>
        (i % 2 ? a : b).api(a.P).post(`/v1/webhooks/${subs[i % 4]}/test`),
      ),
    );
    await waitUntil(async () => receiver.received('/shared').length >= total, 30_000, 'every delivery');
    await new Promise((r) => setTimeout(r, 500));
    const ids = receiver.received('/shared').map((r) => String(r.headers['service-delivery']));
    expect(ids).toHaveLength(total);
    expect(new Set(ids).size).toBe(total);
    expect(overlapped).toBe(0);
    // Both workers took part.
    expect(sent.a).toBeGreaterThan(0);
    expect(sent.b).toBeGreaterThan(0);
    expect(sent.a + sent.b).toBe(total);
  } finally {
    await a.stop();
    await b.stop();
  }
});

it('kill -9 of a worker mid-delivery: another worker delivers it after the lease, nothing lost', async () => {
  const secret = `kill-test-${randomBytes(8).toString('hex')}`;
  const root = path.resolve(__dirname, '..', '..', '..');
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, '..', 'src', 'start.ts')], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      DATABASE_URL: db.url,
      KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:29092',
      KAFKA_GROUP_ID: `webhooks-kill-${randomUUID()}`,
      INTERNAL_IDENTITY_SECRET: secret,
      WEBHOOKS_ALLOW_LOCAL_HTTP: 'true',
      DELIVERY_LEASE_MS: '4000',
      DELIVERY_TIMEOUT_MS: '2000',
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stderr.on('data', (d) => (output += String(d)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`not listening within 30 s:\n${output}`)), 30_000);
      child.stdout.on('data', (d: Buffer) => {
        output += String(d);
        const match = /"url":"(http:\/\/[^"]+)"/.exec(output);
        if (match) {
          clearTimeout(timer);
          resolve(match[1]!);
        }
      });
    });
    const identity = signIdentity(
      {
        sub: 'shopper:kill:admin',
        cust_id: 'KILL',
        login: 'admin',
        client_id: 'client-kill',
        scopes: ['admin:all'],
        jti: randomUUID(),
        exp: Math.floor(Date.now() / 1000) + 600,
      },
      secret,
    );
    const call = (p: string, body: object = {}) =>
      fetch(`${url}${p}`, {
        method: 'POST',
        headers: { 'X-Ordering-Identity': identity, 'Content-Type': 'application/json' },
        body: JSON.stringify(body),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as { id: string } }));
    // The first request to the receiver hangs: the child is then mid-delivery.
    receiver.on('/killed', (_req, n) => (n === 1 ? 'hang' : { status: 200 }));
    const sub = await call('/v1/webhooks', { url: receiver.url('/killed'), events: ['user.created'] });
    expect(sub.status).toBe(201);
    const queued = await call(`/v1/webhooks/${sub.body.id}/test`);
    expect(queued.status).toBe(202);
    await waitUntil(
      async () => receiver.received('/killed').length === 1,
      15_000,
      'the child to be mid-delivery',
    );
    child.kill('SIGKILL');
    await exited;
  } finally {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  }

  // Another worker (this process) on the same database takes the delivery over once the lease ends.
  const survivor = await startHarness({ db, env: { INTERNAL_IDENTITY_SECRET: secret } });
  try {
    await waitUntil(
      async () => receiver.received('/killed').length === 2,
      20_000,
      'the delivery to be sent again',
    );
    const [first, second] = receiver.received('/killed');
    expect(second!.headers['service-delivery']).toBe(first!.headers['service-delivery']);
    expect(second!.body).toBe(first!.body);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(3000);
    await waitUntil(
      async () =>
        (await db.knex('webhook_deliveries').where({ id: first!.headers['service-delivery'] }).first())
          .status === 'succeeded',
      5000,
      'the delivery to be recorded as succeeded',
    );
    const attempts = await db
      .knex('webhook_delivery_attempts')
      .where({ delivery_id: first!.headers['service-delivery'] });
    expect(attempts.map((a: { status_code: number }) => a.status_code)).toEqual([200]);
  } finally {
    await survivor.stop();
  }
});
