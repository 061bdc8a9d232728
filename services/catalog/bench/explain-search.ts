// Not a test: the catalog's list and search statements on a database the benchmark left behind
// (BENCH_KEEP_DATABASES=1 prints its URL), one per query shape: the CPU one statement costs its
// PostgreSQL session (from /proc, over RUNS executions, planning included as the service runs
// them), the least and median time, the shared buffers it touched, and the plan with EXPLAIN
// (ANALYZE, BUFFERS) when EXPLAIN=1 (PLAN_ONLY=1: the CPU of planning alone, as a statement sent
// unprepared would pay it). A search is a named prepared statement, as the service sends it: after
// its first five executions in the session PostgreSQL runs its generic plan, so the CPU per run has
// no planning in it, and the plan printed for a search is the generic one. Buffers do not change
// with the machine's load and CPU changes much less than times do.
//   DATABASE_URL=postgres://.../test_catalog_... tsx bench/explain-search.ts [shape ...]
import { processCpuMs } from '@ordering/testing';
import { createKnex } from '@ordering/db';
import { CatalogViewRepository, SEARCH_SESSION_SETTINGS } from '../src/data-access/catalog-view-repository';

// One session, so that its CPU time (/proc) is the statements' own, whatever else the machine runs.
const knex = createKnex({
  url: process.env.DATABASE_URL!,
  sessionSettings: SEARCH_SESSION_SETTINGS,
  pool: { min: 1, max: 1 },
});

const RUNS = Number(process.env.RUNS ?? 30);

const shapes: Record<string, { q?: string; categoryIds?: string[] }> = {
  browse: {},
  code: { q: 'SKU-004242' },
  word: { q: 'stapler' },
  stem: { q: 'staplers' },
  typo: { q: 'stapeler' },
  two: { q: 'blue stapler' },
  description: { q: 'goes well' },
  none: { q: 'zyxwvut' },
  category: { categoryIds: ['cat-3', 'cat-3-0', 'cat-3-1', 'cat-3-2'] },
};

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const { rows: accounts } = await knex.raw(
    `select cust_id from price_list_assignments where cust_id like '%-%-%' limit 1`,
  );
  const child = (accounts as { cust_id: string }[])[0]!.cust_id;
  const top = child.split('-').slice(0, 2).join('-');
  const account = { custId: child, lineage: [child, top], currency: 'USD' };
  let captured: { sql: string; bindings: unknown[] } | undefined;
  knex.on('query', (q: { sql: string; bindings: unknown[] }) => (captured ??= q));
  const repo = new CatalogViewRepository(knex);
  for (const [name, shape] of Object.entries(shapes)) {
    if (wanted.length && !wanted.includes(name)) continue;
    captured = undefined;
    const rows = await repo.list(account, { ...shape, limit: 26 });
    const { sql, bindings } = captured!;
    const times: number[] = [];
    const { rows: backend } = await knex.raw('select pg_backend_pid() as pid');
    const pid = (backend as { pid: number }[])[0]!.pid;
    // PostgreSQL plans a prepared statement anew for its first five executions in a session.
    for (let run = 0; run < 5; run++) await repo.list(account, { ...shape, limit: 26 });
    const cpuBefore = processCpuMs(pid);
    for (let run = 0; run < RUNS; run++) {
      const started = performance.now();
      if (process.env.PLAN_ONLY === '1')
        await knex.raw(`explain ${sql.replace(/\$\d+/g, '?')}`, bindings as never);
      else await repo.list(account, { ...shape, limit: 26 });
      times.push(performance.now() - started);
    }
    const cpu = (processCpuMs(pid) - cpuBefore) / RUNS;
    times.sort((a, b) => a - b);
    // The statement as sent ($n placeholders), on a connection of the pool.
    const connection = (await knex.client.acquireConnection()) as {
      query(text: string, values: unknown[]): Promise<{ rows: { 'QUERY PLAN': string }[] }>;
    };
    try {
      // The plan the prepared statement runs: the generic one for a search (unnamed statements
      // follow plan_cache_mode too).
      if (shape.q !== undefined) await connection.query('set plan_cache_mode = force_generic_plan', []);
      const { rows: plan } = await connection.query(`explain (analyze, buffers) ${sql}`, bindings);
      await connection.query('reset plan_cache_mode', []);
      const lines = plan.map((r) => r['QUERY PLAN']);
      const buffers = /Buffers: shared hit=(\d+)(?: read=(\d+))?/.exec(lines.join('\n'));
      const hit = buffers ? Number(buffers[1]) + Number(buffers[2] ?? 0) : NaN;
      const planning = lines.find((l) => l.startsWith('Planning Time'));
      console.log(
        `${name.padEnd(12)} ${String(rows.length).padStart(3)} rows  cpu ${cpu.toFixed(1).padStart(5)} ms  least ${times[0]!.toFixed(2).padStart(6)} ms  median ${times[times.length >> 1]!.toFixed(2).padStart(6)} ms  ${String(hit).padStart(5)} buffers  (${planning ?? ''})  ${JSON.stringify(shape)}`,
      );
      if (process.env.EXPLAIN === '1') console.log(`${lines.join('\n')}\n`);
    } finally {
      await knex.client.releaseConnection(connection);
    }
  }
  await knex.destroy();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
