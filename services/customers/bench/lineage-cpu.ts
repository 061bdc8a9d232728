// Benchmark, not a test: the CPU one lineage read (GET /internal/v1/customers/{cust_id}/lineage,
// the catalog's per-account read) costs the customers service: its process and its PostgreSQL
// sessions, from /proc (CPU time says more than latency on a machine shared with other work).
// The service runs as its production bundle (LOG_LEVEL=info) on a fresh database of 1,000
// accounts (100 top-level ones with 9 children each), read at random over keep-alive connections.
//
//   pnpm --filter @ordering/customers-service build
//   TEST_KAFKA_PORT=29292 TEST_KAFKA_CONTROLLER_PORT=29293 node --import tsx services/customers/bench/lineage-cpu.ts
//   BENCH_READS=20000 BENCH_CONCURRENCY=4 BENCH_PORT=18600 (default: a free port)
//   BENCH_CPU_PROFILE_DIR=/tmp/prof (a CPU profile of the customers process, written when it stops)
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { signIdentity } from '@ordering/http';
import {
  closedLoopLoad,
  createTestDatabase,
  processCpuMs,
  startTestKafka,
  stopTestKafka,
} from '@ordering/testing';
import { startServiceProcess } from '../../../test-e2e/support/service-process';
import { migrations } from '../migrations';
import { CustomersAdminClient } from '../src/entry-points/cli/customers-admin-client';

const READS = Number(process.env.BENCH_READS ?? 20_000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const PORT = process.env.BENCH_PORT ? Number(process.env.BENCH_PORT) : undefined;
const CPU_PROFILE_DIR = process.env.BENCH_CPU_PROFILE_DIR;

async function main(): Promise<void> {
  const kafka = await startTestKafka();
  const db = await createTestDatabase({ service: 'customers', migrations });
  const secret = randomBytes(32).toString('hex');
  const customers = await startServiceProcess(
    'services/customers',
    {
      LOG_LEVEL: 'info',
      NODE_ENV: 'production',
      INTERNAL_IDENTITY_SECRET: secret,
      KAFKA_BROKERS: kafka.brokers.join(','),
      DATABASE_URL: db.url,
      PASSWORD_HASH_COST: '10',
      ...(CPU_PROFILE_DIR ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${CPU_PROFILE_DIR}` } : {}),
    },
    PORT ? { port: PORT } : {},
  );
  try {
    const ids: string[] = [];
    const records = Array.from({ length: 100 }, (_, t) => `L-${t}`).flatMap((top) => {
      const children = Array.from({ length: 9 }, (_, c) => `${top}-${c}`);
      ids.push(top, ...children);
      return [
        { cust_id: top, name: `Bench ${top}`, currency: 'USD' },
        ...children.map((c) => ({ cust_id: c, name: `Bench ${c}`, parent_cust_id: top, currency: 'USD' })),
      ];
    });
    const admin = new CustomersAdminClient({ baseUrl: customers.url, internalIdentitySecret: secret });
    await admin.request('POST', '/internal/v1/admin/customers/import', {
      format: 'json',
      content: records.map((r) => JSON.stringify(r)).join('\n'),
    });

    // As the catalog calls it: a service identity with the internal scope.
    const identity = signIdentity(
      {
        sub: 'service:catalog',
        cust_id: 'PLATFORM',
        login: 'catalog',
        client_id: 'catalog',
        scopes: ['internal'],
        jti: 'bench',
        exp: Math.floor(Date.now() / 1000) + 3600,
      },
      secret,
    );
    const { port } = new URL(customers.url);
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
    const read = (custId: string) =>
      new Promise<void>((resolve, reject) => {
        http
          .get(
            {
              host: '127.0.0.1',
              port,
              path: `/internal/v1/customers/${custId}/lineage`,
              agent,
              headers: { 'x-ordering-identity': identity },
            },
            (res) => {
              if (res.statusCode !== 200) reject(new Error(`lineage read answered ${res.statusCode}`));
              res.resume();
              res.on('end', resolve);
            },
          )
          .on('error', reject);
      });
    const run = (n: number) =>
      closedLoopLoad(CONCURRENCY, n, () => read(ids[Math.floor(Math.random() * ids.length)]!));
    const sessions = async () => {
      const { rows } = await db.knex.raw(
        `select pid from pg_stat_activity where datname = current_database() and application_name = 'customers'`,
      );
      return (rows as { pid: number }[]).map((r) => r.pid);
    };

    await run(2_000); // warm-up: JIT, the pool's connections
    const pgPids = await sessions();
    // What the service costs with no reads at all (its jobs, relays, pool), per second.
    const idleBefore = processCpuMs(customers.pid, ...pgPids);
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const idleMsPerSecond = (processCpuMs(customers.pid, ...pgPids) - idleBefore) / 5;
    const before = { node: processCpuMs(customers.pid), pg: processCpuMs(...pgPids) };
    const started = performance.now();
    await run(READS);
    const seconds = (performance.now() - started) / 1000;
    const nodeMs = (processCpuMs(customers.pid) - before.node) / READS;
    const pgMs = (processCpuMs(...new Set([...pgPids, ...(await sessions())])) - before.pg) / READS;
    console.log(
      `${READS} lineage reads (${CONCURRENCY} connections, ${(READS / seconds).toFixed(0)}/s): ` +
        `customers process ${(nodeMs * 1000).toFixed(0)} µs, its PostgreSQL sessions ${(pgMs * 1000).toFixed(0)} µs, ` +
        `total ${((nodeMs + pgMs) * 1000).toFixed(0)} µs CPU per read; idle ${idleMsPerSecond.toFixed(0)} ms CPU/s`,
    );
  } finally {
    await customers.stop();
    await db.drop();
    await stopTestKafka();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
