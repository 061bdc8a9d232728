// GET /v1/approvals at production-like volume: 50,000 approvals (pending and decided) across an
// account tree of 10 accounts and 40 other accounts, one approver holding 5,000 pending ones (and
// 10,000 decided), seeded in a database of its own (the service's migrations). Runs the repository's
// own queue query for each status, at limit 10 and 100, first page and after a cursor half-way
// down, and prints the plan's execution time (EXPLAIN ANALYZE, BUFFERS), the rows it read, and the
// median wall time of the repository call. Prints figures; it is not a timed test. The seeded
// database is kept (BENCH_RESEED=1 seeds again; BENCH_DROP=1 drops it at the end).
//
//   pnpm --filter @ordering/approvals-service bench:lists   [DATABASE_NAME_PREFIX=... BENCH_RUNS=5]
import type { Knex } from '@ordering/db';
import { medianMs, statementCosts, statementRecorder, withBenchDatabase } from '@ordering/testing';
import { migrations } from '../migrations';
import { ApprovalsRepository, type QueueQuery } from '../src/data-access/approvals-repository';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const TREE = ['cust_tree', ...Array.from({ length: 9 }, (_, i) => `cust_tree_${i + 1}`)];
const BUSY = 'approver_busy@tree';

async function seed(knex: Knex): Promise<void> {
  // One approval_orders row per order; approvals 1..15000 are the busy approver's (the first 10,000
  // decided, the newest 5,000 pending), the rest spread over 200 approvers of 50 accounts.
  await knex.raw(`
    INSERT INTO approval_orders (order_id, cust_id, order_summary, approvers, current_step, status, created_at)
    SELECT 'ord_' || g, CASE WHEN g <= 25000 THEN (ARRAY['${TREE.join("','")}'])[1 + g % 10] ELSE 'cust_other_' || (g % 40) END,
      '{"total":{"amount":1000,"currency":"USD"}}', ARRAY['a'], 1,
      CASE WHEN g > 10000 AND g <= 15000 OR g % 7 = 0 THEN 'pending' ELSE 'approved' END,
      timestamptz '2026-01-01' + g * interval '7 minutes'
    FROM generate_series(1, 50000) g`);
  await knex.raw(`
    INSERT INTO approvals (id, order_id, cust_id, approver, step, status, order_summary, created_at, decided_at)
    SELECT 'apv_' || lpad(o.n::text, 6, '0'), o.order_id, o.cust_id,
      CASE WHEN o.n <= 15000 THEN '${BUSY}' ELSE 'approver_' || (o.n % 200) END, 1,
      CASE WHEN o.n > 10000 AND o.n <= 15000 OR o.n % 7 = 0 THEN 'pending'
           WHEN o.n % 11 = 0 THEN 'rejected' ELSE 'approved' END,
      o.order_summary, o.created_at,
      CASE WHEN o.n > 10000 AND o.n <= 15000 OR o.n % 7 = 0 THEN NULL ELSE o.created_at + interval '1 hour' END
    FROM (SELECT *, substr(order_id, 5)::int AS n FROM approval_orders) o`);
  await knex.raw('ANALYZE approval_orders; ANALYZE approvals');
}

async function main(): Promise<void> {
  await withBenchDatabase(
    {
      name: 'approvals_list_bench',
      migrations,
      seededTable: 'approvals',
      seed,
      describe: '50,000 approvals',
    },
    async (knex) => {
      const repo = new ApprovalsRepository(knex);
      const recorder = statementRecorder(knex);
      console.log('case | limit | page | rows matching | plan ms | rows read | repository call ms (median)');
      const cases: { name: string; query: Omit<QueueQuery, 'limit' | 'after'> }[] = [
        {
          name: 'busy approver, pending (tree reach)',
          query: { approver: BUSY, custIds: TREE, status: 'pending' },
        },
        { name: 'busy approver, approved', query: { approver: BUSY, custIds: TREE, status: 'approved' } },
        { name: 'busy approver, rejected', query: { approver: BUSY, custIds: TREE, status: 'rejected' } },
        {
          name: 'busy approver, pending, one sub-account reach',
          query: { approver: BUSY, custIds: ['cust_tree_3'], status: 'pending' },
        },
        {
          name: 'other approver, pending',
          query: { approver: 'approver_21', custIds: ['cust_other_21', 'cust_tree_2'], status: 'pending' },
        },
      ];
      for (const c of cases) {
        const base = knex('approvals')
          .where({ approver: c.query.approver, status: c.query.status })
          .whereIn('cust_id', c.query.custIds);
        const [{ total }] = (await base.clone().count({ total: '*' })) as [{ total: string }];
        const middle = (await base
          .clone()
          .select('created_at', 'id')
          .orderBy([{ column: 'created_at' }, { column: 'id' }])
          .offset(Math.floor(Number(total) / 2))
          .first()) as { created_at: Date; id: string } | undefined;
        for (const limit of [10, 100]) {
          for (const page of ['first', 'deep'] as const) {
            const query: QueueQuery = {
              ...c.query,
              limit,
              ...(page === 'deep' && middle
                ? { after: { createdAt: middle.created_at, id: middle.id } }
                : {}),
            };
            const [queue] = await statementCosts(knex, recorder, () => repo.queue(query));
            const median = await medianMs(() => repo.queue(query), RUNS);
            console.log(
              [
                c.name,
                limit,
                page,
                total,
                queue!.executionMs.toFixed(2),
                queue!.rowsRead,
                median.toFixed(2),
              ].join(' | '),
            );
          }
        }
      }
    },
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
