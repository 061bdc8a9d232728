// Orders placed per second through the gateway, on the platform as `./dev up` runs it (every
// process its bundle, telemetry on exporting to Zipkin, log level info), with real client-credentials
// tokens from the auth service and several items per order; then p50/p99 at half that rate; and,
// in the same run, PostgreSQL's own insert rate on this machine (pgbench) as the reference. CPU
// seconds per order of each process (read from /proc) say where the time goes. Prints figures; it
// is not a timed test.
//
//   ./dev up   (in another terminal), then:
//   pnpm --filter @ordering/orders-service bench   [BENCH_SECONDS=15 BENCH_CONNECTIONS=32 BENCH_TOKENS=8]
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { openLoopLoad, processCpuMs } from '@ordering/testing';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32);
/** Tokens used round-robin: each has its own rate-limit bucket (120/s, burst 240). */
const TOKENS = Number(process.env.BENCH_TOKENS ?? 8);
/** BENCH_IDEMPOTENCY_KEYS=1: every order carries a new Idempotency-Key, as integrators that retry send. */
const IDEMPOTENCY_KEYS = process.env.BENCH_IDEMPOTENCY_KEYS === '1';
const runId = Date.now().toString(36);
const repoRoot = path.resolve(__dirname, '..', '..', '..');
const PG_BASE_URL = process.env.DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432';

interface Stack {
  api_base_url: string;
  auth_url: string;
  services: Record<string, string>;
  kafka_brokers: string[];
  traces_url?: string;
  demo: { clients: { client_id: string; client_secret?: string; cust_id: string; scopes: string[] }[] };
}

async function token(auth: string, client: { client_id: string; client_secret?: string }): Promise<string> {
  const res = await fetch(`${auth}/oauth/token`, {
    method: 'POST',
    headers: {
      Authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
      'Content-Type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'orders:read orders:write' }),
  });
  if (!res.ok) throw new Error(`token: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** The pids listening on a TCP port (ss), for /proc CPU accounting. */
function pidOfPort(port: string): number | undefined {
  const out = execFileSync('ss', ['-ltnpH', `sport = :${port}`]).toString();
  const match = /pid=(\d+)/.exec(out);
  return match ? Number(match[1]) : undefined;
}

/**
 * The PostgreSQL backends serving this platform's databases (DATABASE_NAME_PREFIX), by database: on
 * a machine shared with other sessions, every `postgres` process also counts their queries.
 */
function platformBackends(): Record<string, number[]> {
  const prefix = process.env.DATABASE_NAME_PREFIX ?? '';
  const out = execFileSync('psql', [
    `${PG_BASE_URL}/postgres`,
    '-Atc',
    `select datname, pid from pg_stat_activity where datname like '${prefix.replace(/'/g, "''")}%'`,
  ]).toString();
  const byDb: Record<string, number[]> = {};
  for (const line of out.trim().split('\n').filter(Boolean)) {
    const [db, pid] = line.split('|');
    const name = `  postgresql: ${db!.slice(prefix.length)}`;
    (byDb[name] ??= []).push(Number(pid));
  }
  return byDb;
}

function postgresPids(): number[] {
  return execFileSync('pgrep', ['-x', 'postgres']).toString().trim().split('\n').map(Number).filter(Boolean);
}

async function run(url: string, body: string, tokens: string[], opts: { seconds: number; rate?: number }) {
  let i = 0;
  return autocannon({
    url,
    connections: CONNECTIONS,
    duration: opts.seconds,
    ...(opts.rate ? { overallRate: opts.rate } : {}),
    requests: [
      {
        method: 'POST',
        path: '/v1/orders',
        body,
        headers: { 'content-type': 'application/json' },
        setupRequest: (req) => {
          const n = i++;
          return {
            ...req,
            headers: {
              ...req.headers,
              authorization: `Bearer ${tokens[n % tokens.length]}`,
              ...(IDEMPOTENCY_KEYS ? { 'idempotency-key': `bench-${runId}-${n}` } : {}),
            },
          };
        },
      },
    ],
  });
}

function pgbenchInsertRate(): number {
  const db = `${process.env.DATABASE_NAME_PREFIX ?? ''}bench_pgbench`;
  const admin = `${PG_BASE_URL}/postgres`;
  execFileSync('psql', [admin, '-qc', `DROP DATABASE IF EXISTS ${db}`]);
  execFileSync('psql', [admin, '-qc', `CREATE DATABASE ${db}`]);
  const url = `${PG_BASE_URL}/${db}`;
  // One order-like transaction: an order row and four line rows, committed (synchronous commit on).
  execFileSync('psql', [
    url,
    '-qc',
    'CREATE TABLE o (id bigserial primary key, cust_id text, total bigint, created_at timestamptz default now()); ' +
      'CREATE TABLE l (id bigserial primary key, order_id bigint, item_code text, quantity int, line_total bigint)',
  ]);
  const script = path.join(fs.mkdtempSync('/tmp/pgbench-'), 'order.sql');
  fs.writeFileSync(
    script,
    [
      'BEGIN;',
      "INSERT INTO o (cust_id, total) VALUES ('ACME', 12345);",
      "INSERT INTO l (order_id, item_code, quantity, line_total) SELECT currval('o_id_seq'), 'SKU-' || g, g, 100 * g FROM generate_series(1, 4) g;",
      'END;',
    ].join('\n'),
  );
  const out = execFileSync('pgbench', ['-n', '-c', '8', '-j', '2', '-T', '10', '-f', script, url]).toString();
  execFileSync('psql', [admin, '-qc', `DROP DATABASE ${db}`]);
  return Number(/tps = ([\d.]+)/.exec(out)![1]);
}

async function main(): Promise<void> {
  const stack = JSON.parse(fs.readFileSync(path.join(repoRoot, '.local', 'stack.json'), 'utf8')) as Stack;
  const client = stack.demo.clients.find(
    (c) => c.cust_id === 'ACME' && c.scopes.includes('orders:write') && c.client_secret,
  );
  if (!client) throw new Error('no demo client of ACME with orders:write in .local/stack.json');
  const tokens = await Promise.all(Array.from({ length: TOKENS }, () => token(stack.auth_url, client)));
  const gateway = stack.api_base_url.replace(/\/v1\/?$/, '');
  const account = (await (
    await fetch(`${gateway}/v1/customers/ACME`, { headers: { authorization: `Bearer ${tokens[0]}` } })
  ).json()) as { addresses: { id: string; type: string }[] };
  const address = account.addresses.find((a) => a.type === 'shipping')!.id;
  // Four lines, under ACME's approval threshold: approved at once (order.submitted + order.approved).
  const body = JSON.stringify({
    cust_id: 'ACME',
    shipping_address_id: address,
    items: [
      { item_code: 'PAP-A4-500', quantity: 2 },
      { item_code: 'PEN-BLU-12', quantity: 1 },
      { item_code: 'STP-DESK', quantity: 1 },
      { item_code: 'STA-26-5K', quantity: 3 },
    ],
  });
  const probe = await fetch(`${gateway}/v1/orders`, {
    method: 'POST',
    headers: { authorization: `Bearer ${tokens[0]}`, 'content-type': 'application/json' },
    body,
  });
  if (probe.status !== 201)
    throw new Error(`placing an order answered ${probe.status}: ${await probe.text()}`);

  const ports = Object.fromEntries(Object.entries(stack.services).map(([k, v]) => [k, new URL(v).port]));
  const procs: Record<string, number[]> = {};
  for (const name of ['gateway', 'orders', 'customers', 'catalog', 'approvals', 'auth', 'webhooks']) {
    const pid = ports[name] ? pidOfPort(ports[name]!) : undefined;
    if (pid) procs[name] = [pid];
  }
  procs.postgresql = postgresPids();
  // The JVMs of the local platform share the machine too: the Kafka broker and the trace viewer
  // (spans of every process go to it; in a cluster they leave the node for a collector).
  const kafkaPid = pidOfPort(stack.kafka_brokers[0]!.split(':')[1]!);
  if (kafkaPid) procs['kafka (jvm)'] = [kafkaPid];
  const zipkinPid = stack.traces_url ? pidOfPort(new URL(stack.traces_url).port) : undefined;
  if (zipkinPid) procs['zipkin (jvm)'] = [zipkinPid];
  // The bench's own load generator (autocannon) runs here as well.
  procs['this bench (load generator)'] = [process.pid];

  await run(gateway, body, tokens, { seconds: 3 }); // warm-up
  // After the warm-up, each service's pool holds its connections (a pool keeps none while idle).
  // Every postgres process of the machine read again: the backends the warm-up opened would be
  // missing otherwise, and the line would count less than the platform's backends alone.
  procs.postgresql = postgresPids();
  const backends = platformBackends();
  Object.assign(procs, backends);
  const before = Object.fromEntries(Object.entries(procs).map(([k, pids]) => [k, processCpuMs(...pids)]));
  const max = await run(gateway, body, tokens, { seconds: SECONDS });
  const after = Object.fromEntries(Object.entries(procs).map(([k, pids]) => [k, processCpuMs(...pids)]));
  const placed = max['2xx'];
  const perSecond = placed / SECONDS;
  const half = Math.max(1, Math.floor(perSecond / 2));
  // Half load arrives open loop (Poisson), not as autocannon's once-a-second bursts.
  const halfRun = await openLoopLoad(
    (n) => ({
      method: 'POST',
      url: `${gateway}/v1/orders`,
      body,
      headers: {
        'content-type': 'application/json',
        authorization: `Bearer ${tokens[n % tokens.length]}`,
        ...(IDEMPOTENCY_KEYS ? { 'idempotency-key': `bench-${runId}-half-${n}` } : {}),
      },
    }),
    { rate: half, seconds: SECONDS },
  );
  const halfBursts = await run(gateway, body, tokens, { seconds: SECONDS, rate: half });
  const pgTps = pgbenchInsertRate();

  const line = (label: string, value: string) => console.log(`${label.padEnd(44)} ${value}`);
  console.log(
    `\norders through the gateway (${CONNECTIONS} connections, ${SECONDS} s, ${TOKENS} tokens, 4 lines per order` +
      `${IDEMPOTENCY_KEYS ? ', an Idempotency-Key each' : ''})`,
  );
  line(
    'orders placed per second (max)',
    `${perSecond.toFixed(0)}   (non-2xx: ${max.non2xx}, errors: ${max.errors})`,
  );
  line('latency at max: p50 / p99 (ms)', `${max.latency.p50} / ${max.latency.p99}`);
  line(
    `at half load (${half}/s): p50 / p99 (ms)`,
    `${halfRun.p50} / ${halfRun.p99}   (open loop; non-2xx: ${halfRun.non2xx}, errors: ${halfRun.errors})`,
  );
  line(
    '  the same, as bursts: p50 / p99 (ms)',
    `${halfBursts.latency.p50} / ${halfBursts.latency.p99}   (autocannon overallRate ${half})`,
  );
  line('pgbench: order + 4 lines, committed (tps)', `${pgTps.toFixed(0)}   (8 clients, 10 s)`);
  line('orders/s as a share of pgbench', `${((perSecond / pgTps) * 100).toFixed(0)} %`);
  console.log('\nCPU per order placed (ms, from /proc during the max run):');
  const perOrder = (name: string) => ((after[name] ?? 0) - (before[name] ?? 0)) / Math.max(1, placed);
  for (const name of Object.keys(procs).filter((n) => !(n in backends))) {
    line(`  ${name}`, perOrder(name).toFixed(2));
  }
  // The backends alone (connections opened during the run not counted: a lower bound).
  const ownPg = Object.keys(backends).reduce((sum, name) => sum + perOrder(name), 0);
  line('  postgresql, backends of this platform only', ownPg.toFixed(2));
  for (const name of Object.keys(backends).sort()) {
    if (perOrder(name) >= 0.01) line(`  ${name}`, perOrder(name).toFixed(2));
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
