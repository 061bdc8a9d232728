// Benchmark, not a test: the catalog over 100,000 items and 1,000 accounts with price lists.
// The customers and catalog services run as their production bundles in their own processes
// (OpenTelemetry loaded first, spans made and dropped by a no-op exporter unless OTEL_* says
// otherwise; LOG_LEVEL=info as in production), on fresh databases, the local Redis-free path, the
// test Kafka broker. Prints:
//   - the bulk import time of 100,000 items (one call of the operators' import, CSV)
//   - requests per second and p50/p99 latency through the service, at saturation, of
//       the reference: a primary-key lookup (GET /v1/catalog/items/{id}?cust_id=...)
//       a list page (GET /v1/catalog/items?cust_id=...&limit=25)
//       a category page (... &category_id=<top category>)
//       a search (GET /v1/catalog/items?cust_id=...&q=<word>), random accounts and words
//   - search latency at half of its maximum rate, open loop: requests arrive at random (Poisson)
//     times whatever the answers, latency counted from when each was due (autocannon's
//     `overallRate` is not that: each connection sends its quota of the second back to back, then
//     waits for the next second, so all 16 connections hit the service together every second; its
//     figure is printed too, as "bursts")
//   - the latency of each query shape alone (one connection: exact item code, a name word, its
//     plural, a typo, two words, a description-only word, a word found nowhere)
//   - the CPU time per request of the catalog process, of its PostgreSQL sessions, and of the
//     customers service with its sessions (the catalog's lineage reads), from /proc, which says more
//     than requests per second on a machine shared with other work
// and the ratio search / primary-key lookup.
//
//   pnpm --filter @ordering/customers-service build && pnpm --filter @ordering/catalog-service build
//   TEST_KAFKA_PORT=29292 TEST_KAFKA_CONTROLLER_PORT=29293 pnpm --filter @ordering/catalog-service bench
//   BENCH_SECONDS=10 BENCH_CONNECTIONS=16 BENCH_ITEMS=100000 BENCH_ACCOUNTS=1000
//   BENCH_PORT=18600 (customers on it, the catalog on the next; default free ports)
//   BENCH_KEEP_DATABASES=1 (leave the databases for bench/explain-search.ts)
//   BENCH_CPU_PROFILE_DIR=/tmp/prof (a CPU profile of the catalog process)
import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { CustomersAdminClient, migrations as customersMigrations } from '@ordering/customers-service';
import { signIdentity } from '@ordering/http';
import { createTestDatabase, openLoopLoad, startTestKafka, stopTestKafka } from '@ordering/testing';
import { startServiceProcess, type ServiceProcess } from '../../../test-e2e/support/service-process';
import { migrations } from '../migrations';
import { CatalogAdminClient } from '../src/entry-points/cli/catalog-admin-client';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const ITEMS = Number(process.env.BENCH_ITEMS ?? 100_000);
const ACCOUNTS = Number(process.env.BENCH_ACCOUNTS ?? 1000);
/** Customers listens on BENCH_PORT, the catalog on BENCH_PORT + 1; default: free ports. */
const PORT = process.env.BENCH_PORT ? Number(process.env.BENCH_PORT) : undefined;
/** Leaves both databases in place (their URLs printed) to look at query plans afterwards. */
const KEEP_DATABASES = process.env.BENCH_KEEP_DATABASES === '1';
/** BENCH_CPU_PROFILE_DIR: where the catalog process writes a CPU profile (--cpu-prof) when it stops. */
const CPU_PROFILE_DIR = process.env.BENCH_CPU_PROFILE_DIR;
const TOP_ACCOUNTS = Math.max(1, Math.round(ACCOUNTS / 10));

const secret = randomBytes(32).toString('hex');
const suffix = randomBytes(2).toString('hex').toUpperCase();

// Names from a vocabulary: each noun is in about 1/60 of the items, so a one-word search matches
// about 1,700 items out of 100,000 and has to rank them.
const NOUNS = [
  'stapler',
  'binder',
  'folder',
  'notebook',
  'marker',
  'pencil',
  'eraser',
  'envelope',
  'label',
  'tape',
  'scissors',
  'ruler',
  'calculator',
  'lamp',
  'chair',
  'desk',
  'shelf',
  'cabinet',
  'monitor',
  'keyboard',
  'mouse',
  'headset',
  'webcam',
  'cable',
  'charger',
  'adapter',
  'printer',
  'toner',
  'cartridge',
  'paper',
  'cardstock',
  'laminator',
  'shredder',
  'whiteboard',
  'easel',
  'clipboard',
  'organizer',
  'tray',
  'basket',
  'bin',
  'mug',
  'kettle',
  'coffee',
  'tea',
  'sugar',
  'cups',
  'napkins',
  'towels',
  'soap',
  'sanitizer',
  'gloves',
  'mask',
  'battery',
  'flashlight',
  'extension',
  'hub',
  'dock',
  'stand',
  'mat',
  'footrest',
];
const ADJECTIVES = [
  'heavy-duty',
  'compact',
  'ergonomic',
  'premium',
  'recycled',
  'wireless',
  'portable',
  'adjustable',
  'magnetic',
  'transparent',
  'colored',
  'large',
  'small',
  'professional',
  'classic',
  'modern',
  'quiet',
  'durable',
  'lightweight',
  'foldable',
];
const COLOURS = ['black', 'white', 'blue', 'red', 'green', 'grey', 'silver', 'yellow'];
const CATEGORIES = 12;

const pick = <T>(list: readonly T[], i: number): T => list[i % list.length]!;

function itemsCsv(): string {
  const lines = ['item_code,name,description,category_id,currency,pricing,lead_time_days,stock_state'];
  for (let i = 0; i < ITEMS; i++) {
    const noun = pick(NOUNS, i);
    const adjective = pick(ADJECTIVES, Math.floor(i / NOUNS.length));
    const colour = pick(COLOURS, Math.floor(i / 7));
    const other = pick(NOUNS, i * 7 + 3);
    const base = 100 + ((i * 37) % 50_000);
    lines.push(
      [
        `SKU-${String(i).padStart(6, '0')}`,
        `${adjective} ${colour} ${noun} ${i}`,
        `A ${adjective} ${noun} in ${colour}; goes well with a ${other}`,
        `cat-${i % CATEGORIES}-${i % 3}`,
        'USD',
        i % 4 === 0 ? `1:${base};10:${Math.round(base * 0.9)};100:${Math.round(base * 0.8)}` : `1:${base}`,
        String(i % 15),
        i % 50 === 0 ? 'out_of_stock' : 'in_stock',
      ].join(','),
    );
  }
  return lines.join('\n');
}

/** CPU milliseconds per request: the catalog process, its PostgreSQL sessions, customers (process and sessions: the lineage reads). */
interface Cpu {
  node: number;
  pg: number;
  customers: number;
}

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
}

/** Each request is for a random account: its identity (as the gateway signs it) and its path. */
async function load(
  url: string,
  identity: (custId: string) => string,
  accounts: string[],
  path: (custId: string) => string,
  options: { overallRate?: number; connections?: number } = {},
): Promise<Figures> {
  const result = await autocannon({
    url,
    connections: options.connections ?? CONNECTIONS,
    duration: SECONDS,
    ...(options.overallRate ? { overallRate: options.overallRate } : {}),
    requests: [
      {
        method: 'GET',
        setupRequest: (req) => {
          const custId = pick(accounts, Math.floor(Math.random() * accounts.length));
          return { ...req, path: path(custId), headers: { 'x-ordering-identity': identity(custId) } };
        },
      },
    ],
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
  };
}

/** Open loop (see `openLoopLoad` of @ordering/testing): each request for a random account. */
function openLoad(
  url: string,
  identity: (custId: string) => string,
  accounts: string[],
  path: (custId: string) => string,
  rate: number,
): Promise<Figures> {
  return openLoopLoad(
    () => {
      const custId = pick(accounts, Math.floor(Math.random() * accounts.length));
      return {
        method: 'GET',
        url: `${url}${path(custId)}`,
        headers: { 'x-ordering-identity': identity(custId) },
      };
    },
    { rate, seconds: SECONDS },
  );
}

/** CPU seconds (user + system) each of these processes used so far, from /proc (Linux); gone ones are left out. */
function cpuSeconds(pids: number[]): Map<number, number> {
  const used = new Map<number, number>();
  for (const pid of pids) {
    try {
      // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      used.set(pid, (Number(fields[11]) + Number(fields[12])) / 100);
    } catch {
      // the process has gone
    }
  }
  return used;
}

/** CPU seconds used between two readings by the processes alive at the second (new ones: all of theirs). */
function cpuBetween(before: Map<number, number>, after: Map<number, number>): number {
  let seconds = 0;
  for (const [pid, used] of after) seconds += used - (before.get(pid) ?? 0);
  return seconds;
}

const fmtCpu = (f: Figures & { cpu: Cpu }) =>
  `${fmt(f)}   cpu/req catalog ${f.cpu.node.toFixed(2)} ms, postgres ${f.cpu.pg.toFixed(2)} ms, customers ${f.cpu.customers.toFixed(2)} ms`;

const fmt = (f: Figures) =>
  `${f.rps.toFixed(0).padStart(6)} req/s   p50 ${String(f.p50).padStart(4)} ms   p99 ${String(f.p99).padStart(4)} ms` +
  (f.errors || f.non2xx ? `   (errors ${f.errors}, non-2xx ${f.non2xx})` : '');

async function main(): Promise<void> {
  const kafka = await startTestKafka();
  const brokers = kafka.brokers.join(',');
  const customersDb = await createTestDatabase({ service: 'customers', migrations: customersMigrations });
  const catalogDb = await createTestDatabase({ service: 'catalog', migrations });
  const procs: ServiceProcess[] = [];
  try {
    const production = {
      LOG_LEVEL: 'info',
      NODE_ENV: 'production',
      INTERNAL_IDENTITY_SECRET: secret,
      KAFKA_BROKERS: brokers,
    };
    const customers = await startServiceProcess(
      'services/customers',
      { ...production, DATABASE_URL: customersDb.url, PASSWORD_HASH_COST: '10' },
      PORT ? { port: PORT } : {},
    );
    procs.push(customers);
    const catalog = await startServiceProcess(
      'services/catalog',
      {
        ...production,
        DATABASE_URL: catalogDb.url,
        CUSTOMERS_URL: customers.url,
        // A CPU profile of the catalog process, written when it stops.
        ...(CPU_PROFILE_DIR ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${CPU_PROFILE_DIR}` } : {}),
      },
      PORT ? { port: PORT + 1 } : {},
    );
    procs.push(catalog);
    const admin = new CatalogAdminClient({
      baseUrl: catalog.url,
      internalIdentitySecret: secret,
      timeoutMs: 600_000,
    });
    const accounts = new CustomersAdminClient({ baseUrl: customers.url, internalIdentitySecret: secret });

    // 1,000 accounts: 100 top-level ones with 9 children each.
    const tops = Array.from({ length: TOP_ACCOUNTS }, (_, t) => `B${suffix}-${t}`);
    const all: string[] = [];
    const records = tops.flatMap((top) => {
      const children = Array.from(
        { length: Math.round(ACCOUNTS / TOP_ACCOUNTS) - 1 },
        (_, c) => `${top}-${c}`,
      );
      all.push(top, ...children);
      return [
        { cust_id: top, name: `Bench ${top}`, currency: 'USD' },
        ...children.map((child) => ({
          cust_id: child,
          name: `Bench ${child}`,
          parent_cust_id: top,
          currency: 'USD',
        })),
      ];
    });
    await accounts.request('POST', '/internal/v1/admin/customers/import', {
      format: 'json',
      content: records.map((r) => JSON.stringify(r)).join('\n'),
    });

    for (let c = 0; c < CATEGORIES; c++) {
      await admin.createCategory({ id: `cat-${c}`, name: `Category ${c}` });
      for (let s = 0; s < 3; s++)
        await admin.createCategory({ id: `cat-${c}-${s}`, name: `Sub ${c}.${s}`, parent_id: `cat-${c}` });
    }
    const csv = itemsCsv();
    const started = performance.now();
    const imported = await admin.importItems('csv', csv);
    const importSeconds = (performance.now() - started) / 1000;

    // A price list per top-level account (its 9 children inherit it) with its own tiers for 500
    // items; every tenth child has a list of its own for 50 more. Written straight to the catalog's
    // database in bulk: the operators' endpoints set one price at a time.
    const { rows: sample } = await catalogDb.knex.raw(`select id from items order by item_code`);
    const itemIds = (sample as { id: string }[]).map((r) => r.id);
    const lists: { id: string; name: string; currency: string }[] = [];
    const entries: { price_list_id: string; item_id: string; tiers: string }[] = [];
    const assignments: { cust_id: string; price_list_id: string }[] = [];
    const addList = (owner: string, count: number, seed: number) => {
      const id = `PL-${owner}`;
      lists.push({ id, name: `Prices of ${owner}`, currency: 'USD' });
      for (let k = 0; k < count; k++) {
        const item = itemIds[(seed * 7919 + k * 197) % itemIds.length]!;
        entries.push({
          price_list_id: id,
          item_id: item,
          tiers: JSON.stringify([{ min_qty: 1, amount: 90 + k }]),
        });
      }
      assignments.push({ cust_id: owner, price_list_id: id });
    };
    tops.forEach((top, t) => addList(top, 500, t));
    all
      .filter((c, i) => c.split('-').length === 3 && i % 10 === 1)
      .forEach((child, i) => addList(child, 50, 1000 + i));
    await catalogDb.knex.batchInsert('price_lists', lists, 1000);
    const seen = new Set<string>();
    const unique = entries.filter((e) => {
      const key = `${e.price_list_id}/${e.item_id}`;
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    });
    await catalogDb.knex.batchInsert('price_list_items', unique, 2000);
    await catalogDb.knex.batchInsert('price_list_assignments', assignments, 1000);
    await catalogDb.knex.raw('analyze');

    const identity = (custId: string) =>
      signIdentity(
        {
          sub: `shopper:${custId.toLowerCase()}:bench`,
          cust_id: custId,
          login: 'bench',
          client_id: 'bench',
          scopes: ['catalog:read'],
          jti: randomUUID(),
          exp: Math.floor(Date.now() / 1000) + 3600,
        },
        secret,
      );
    const randomItem = () => pick(itemIds, Math.floor(Math.random() * itemIds.length));
    const paths = {
      pk: (c: string) => `/v1/catalog/items/${randomItem()}?cust_id=${c}`,
      list: (c: string) => `/v1/catalog/items?cust_id=${c}&limit=25`,
      category: (c: string) =>
        `/v1/catalog/items?cust_id=${c}&limit=25&category_id=cat-${Math.floor(Math.random() * CATEGORIES)}`,
      search: (c: string) =>
        `/v1/catalog/items?cust_id=${c}&limit=25&q=${encodeURIComponent(pick(NOUNS, Math.floor(Math.random() * NOUNS.length)))}`,
      searchTwoWords: (c: string) =>
        `/v1/catalog/items?cust_id=${c}&limit=25&q=${encodeURIComponent(`${pick(COLOURS, Math.floor(Math.random() * 8))} ${pick(NOUNS, Math.floor(Math.random() * NOUNS.length))}`)}`,
    };
    // The catalog's PostgreSQL sessions (its pool; they live while the load goes on).
    const backendPids = async () => {
      const { rows } = await catalogDb.knex.raw(
        `select pid from pg_stat_activity where datname = current_database() and application_name = 'catalog'`,
      );
      return (rows as { pid: number }[]).map((r) => r.pid);
    };
    // The customers service's PostgreSQL sessions: it answers the catalog's lineage reads.
    const customersBackendPids = async () => {
      const { rows } = await customersDb.knex.raw(
        `select pid from pg_stat_activity where datname = current_database() and application_name = 'customers'`,
      );
      return (rows as { pid: number }[]).map((r) => r.pid);
    };
    /** Runs one load and adds the CPU milliseconds per answered request of the catalog and of PostgreSQL. */
    const measured = async (figures: () => Promise<Figures>) => {
      const pids = await backendPids();
      const customersPids = [customers.pid, ...(await customersBackendPids())];
      const before = {
        node: cpuSeconds([catalog.pid]),
        pg: cpuSeconds(pids),
        customers: cpuSeconds(customersPids),
      };
      const f = await figures();
      // Sessions opened during the run count from their start; those closed during it are lost.
      const sessions = [...new Set([...pids, ...(await backendPids())])];
      const customersSessions = [...new Set([...customersPids, ...(await customersBackendPids())])];
      const requests = f.rps * SECONDS;
      const nodeMs = (cpuBetween(before.node, cpuSeconds([catalog.pid])) * 1000) / requests;
      const pgMs = (cpuBetween(before.pg, cpuSeconds(sessions)) * 1000) / requests;
      const customersMs = (cpuBetween(before.customers, cpuSeconds(customersSessions)) * 1000) / requests;
      return { ...f, cpu: { node: nodeMs, pg: pgMs, customers: customersMs } };
    };
    const randomNoun = () => pick(NOUNS, Math.floor(Math.random() * NOUNS.length));
    // Nouns without a final s, so that adding one makes a plural the stemmer folds.
    const singular = NOUNS.filter((n) => !n.endsWith('s'));
    const randomSingular = () => pick(singular, Math.floor(Math.random() * singular.length));
    const queryShapes: Record<string, () => string> = {
      'exact item code': () => `sku-${String(Math.floor(Math.random() * ITEMS)).padStart(6, '0')}`,
      'name word': randomNoun,
      'plural (stem)': () => `${randomSingular()}s`,
      'typo (letter doubled)': () => {
        const w = randomSingular();
        const at = 1 + Math.floor(Math.random() * (w.length - 1));
        return w.slice(0, at) + w[at - 1] + w.slice(at);
      },
      'two words': () => `${pick(COLOURS, Math.floor(Math.random() * 8))} ${randomNoun()}`,
      'description word only': () => 'goes',
      'found nowhere': () => `zq${Math.floor(Math.random() * 1000)}x`,
    };
    const run = (
      path: (custId: string) => string,
      options?: { overallRate?: number; connections?: number },
    ) => measured(() => load(catalog.url, identity, all, path, options));
    const runOpen = (path: (custId: string) => string, rate: number) =>
      measured(() => openLoad(catalog.url, identity, all, path, rate));

    // Warm up (JIT, caches, the lineage cache of the 1,000 accounts).
    await run(paths.list);
    await run(paths.search);
    const pk = await run(paths.pk);
    const list = await run(paths.list);
    const category = await run(paths.category);
    const search = await run(paths.search);
    const searchTwo = await run(paths.searchTwoWords);
    const halfRate = Math.max(1, Math.round(search.rps / 2));
    const halfLoad = await runOpen(paths.search, halfRate);
    const halfLoadBursts = await run(paths.search, { overallRate: halfRate });
    const shapes: [string, Figures & { cpu: Cpu }][] = [];
    for (const [name, q] of Object.entries(queryShapes)) {
      shapes.push([
        name,
        await run((c) => `/v1/catalog/items?cust_id=${c}&limit=25&q=${encodeURIComponent(q())}`, {
          connections: 1,
        }),
      ]);
    }

    console.log(
      `\ncatalog benchmark: ${ITEMS} items, ${all.length} accounts (${lists.length} price lists, ${unique.length} list prices)`,
    );
    console.log(
      `${CONNECTIONS} connections, ${SECONDS} s per run, services as production bundles (telemetry on, LOG_LEVEL=info)\n`,
    );
    console.log(`bulk import of ${imported.imported} items (CSV, one call): ${importSeconds.toFixed(1)} s`);
    console.log(`primary-key lookup       ${fmtCpu(pk)}`);
    console.log(`list page (25)           ${fmtCpu(list)}`);
    console.log(`category subtree page    ${fmtCpu(category)}`);
    console.log(`search, one word         ${fmtCpu(search)}`);
    console.log(`search, two words        ${fmtCpu(searchTwo)}`);
    console.log(`search at half its max   ${fmtCpu(halfLoad)}   (open loop, ${halfRate}/s)`);
    console.log(`  the same, as bursts    ${fmtCpu(halfLoadBursts)}   (autocannon overallRate ${halfRate})`);
    console.log(`\neach query shape alone (one connection, ${SECONDS} s each):`);
    for (const [name, f] of shapes) console.log(`  ${name.padEnd(22)} ${fmtCpu(f)}`);
    console.log(`\nsearch / primary-key throughput: ${(search.rps / pk.rps).toFixed(2)} (target >= 0.33)`);
    console.log(`list / primary-key throughput:   ${(list.rps / pk.rps).toFixed(2)}`);
    console.log(`search p99 at half load: ${halfLoad.p99} ms (target < 50 ms)`);
  } finally {
    for (const p of procs.reverse()) await p.stop();
    if (KEEP_DATABASES) {
      console.log(`databases kept: ${catalogDb.url} ${customersDb.url}`);
      await catalogDb.knex.destroy();
      await customersDb.knex.destroy();
    } else {
      await catalogDb.drop();
      await customersDb.drop();
    }
    if (kafka.started) await stopTestKafka();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
