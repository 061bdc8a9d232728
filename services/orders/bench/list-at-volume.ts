// GET /v1/orders at production-like volume: seeds 300k orders (two lines each) across 50 accounts
// in a database of its own (the service's migrations), one account tree holding 120k of them (its
// root 100k, nine sub-accounts 20k), then runs the repository's own list query for every documented
// filter and combination, at limit 10 and 100, on the first page and after a cursor half-way down,
// and prints for each the plan's execution time (EXPLAIN ANALYZE, BUFFERS), the rows it read, and
// the median wall time of the repository call (the SQL the service sends, lines included). Prints
// figures; it is not a timed test. The seeded database is kept for the next run (BENCH_RESEED=1
// seeds it again); BENCH_DROP=1 drops it at the end.
//
//   pnpm --filter @ordering/orders-service bench:lists   [DATABASE_NAME_PREFIX=... BENCH_RUNS=5]
import type { Knex } from '@ordering/db';
import type { OrderStatus } from '@ordering/contracts';
import { medianMs, statementCosts, statementRecorder, withBenchDatabase } from '@ordering/testing';
import { migrations } from '../migrations';
import { type OrderFilter, OrderRepository } from '../src/data-access/order-repository';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);

const ROOT = 'cust_tree';
const SUBS = Array.from({ length: 9 }, (_, i) => `cust_tree_${i + 1}`);
const TREE = [ROOT, ...SUBS];
const BUYER = 'buyer_7@tree';
const APPROVER = 'approver_1@tree';

async function seed(knex: Knex): Promise<void> {
  // 300k orders: 100k in the root, 20k across its sub-accounts, 180k across 40 other accounts.
  // Statuses as a mature account has them (most delivered); 2 years of history; 200 buyers in the
  // tree; every 20th order of the tree went through the approver's queue, every order through
  // one of 40 other approvers' queues of its account.
  await knex.raw(`
    INSERT INTO orders (id, cust_id, ordered_by_login, ordered_by_name, status, currency, subtotal, tax,
      shipping, total, shipping_address, submitted_at, updated_at)
    SELECT 'ord_' || lpad(g::text, 7, '0'),
      CASE WHEN g <= 100000 THEN '${ROOT}'
           WHEN g <= 120000 THEN 'cust_tree_' || (1 + g % 9)
           ELSE 'cust_other_' || lpad((g % 40)::text, 2, '0') END,
      CASE WHEN g <= 120000 THEN 'buyer_' || (g % 200) || '@tree' ELSE 'buyer_' || (g % 50) || '@other' END,
      'Buyer',
      (ARRAY['delivered','delivered','delivered','delivered','delivered','delivered','delivered',
             'shipped','shipped','in_production','approved','pending_approval','cancelled',
             'delivered','delivered','delivered','delivered','delivered','delivered','delivered'])[1 + g % 20],
      'USD', 10000, 800, 500, 11300, '{"street_1":"1 Main St","city":"Springfield","country":"US"}',
      timestamptz '2026-11-01T00:00:00Z' - ((g::bigint * 7919) % 300000) * interval '3.5 minutes',
      now()
    FROM generate_series(1, 300000) g`);
  await knex.raw(`
    INSERT INTO order_items (id, order_id, position, item_code, description, quantity, unit_price, line_total)
    SELECT o.id || '_' || p, o.id, p, 'SKU-' || p, 'Item ' || p, 1, 5000, 5000
    FROM orders o CROSS JOIN generate_series(0, 1) p`);
  await knex.raw(`
    INSERT INTO order_approvers (order_id, approver)
    SELECT id, '${APPROVER}' FROM orders WHERE cust_id LIKE 'cust_tree%' AND right(id, 2)::int % 20 = 0
    UNION ALL
    SELECT id, 'approver_' || (2 + right(id, 3)::int % 40) || '@' || split_part(cust_id, '_', 2) FROM orders`);
  await knex.raw('ANALYZE orders; ANALYZE order_items; ANALYZE order_approvers');
}

interface Case {
  name: string;
  filter: Omit<OrderFilter, 'limit' | 'after'>;
}

const cases: Case[] = [
  { name: 'tree (no cust_id, reach of the root)', filter: { custIds: TREE } },
  { name: 'cust_id=root', filter: { custIds: [ROOT] } },
  { name: 'cust_id=sub-account', filter: { custIds: ['cust_tree_3'] } },
  { name: 'tree, status=delivered', filter: { custIds: TREE, status: 'delivered' } },
  { name: 'tree, status=pending_approval', filter: { custIds: TREE, status: 'pending_approval' } },
  { name: 'cust_id=root, status=shipped', filter: { custIds: [ROOT], status: 'shipped' } },
  {
    name: 'tree, created_after (last 30 days)',
    filter: { custIds: TREE, createdAfter: new Date('2026-10-02') },
  },
  {
    name: 'tree, status=approved, created_after',
    filter: { custIds: TREE, status: 'approved' as OrderStatus, createdAfter: new Date('2026-06-01') },
  },
  { name: 'shopper (own or queued), tree', filter: { custIds: TREE, ownOrQueuedFor: BUYER } },
  { name: 'approver (own or queued), tree', filter: { custIds: TREE, ownOrQueuedFor: APPROVER } },
  {
    name: 'shopper, status=shipped',
    filter: { custIds: TREE, ownOrQueuedFor: BUYER, status: 'shipped' },
  },
];

let countKnex: Knex;

/** The orders this filter selects, as the list query selects them (for counts and cursors). */
function selected(f: Case['filter']): Knex.QueryBuilder {
  const q = countKnex('orders').whereIn('cust_id', f.custIds);
  if (f.status) void q.where('status', f.status);
  if (f.createdAfter) void q.where('submitted_at', '>=', f.createdAfter);
  if (f.ownOrQueuedFor) {
    const login = f.ownOrQueuedFor;
    void q.where((w) =>
      w
        .where('ordered_by_login', login)
        .orWhereIn('id', countKnex('order_approvers').select('order_id').where('approver', login)),
    );
  }
  return q;
}

async function countOf(f: Case['filter']): Promise<number> {
  const [{ n }] = (await selected(f).count({ n: '*' })) as [{ n: string }];
  return Number(n);
}

/** The position half-way down the list this filter selects (the cursor a deep page continues from). */
async function deepCursor(f: Case['filter'], total: number): Promise<OrderFilter['after']> {
  const row = (await selected(f)
    .select('submitted_at', 'id')
    .orderBy([
      { column: 'submitted_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .offset(Math.floor(total / 2))
    .first()) as { submitted_at: Date; id: string } | undefined;
  return row ? { submittedAt: row.submitted_at, id: row.id } : undefined;
}

async function main(): Promise<void> {
  await withBenchDatabase(
    {
      name: 'orders_list_bench',
      migrations,
      seededTable: 'orders',
      seed,
      describe: '300,000 orders, 600,000 lines',
    },
    async (knex) => {
      countKnex = knex;
      const repo = new OrderRepository(knex);
      const recorder = statementRecorder(knex);
      console.log('case | limit | page | rows matching | plan ms | rows read | repository call ms (median)');
      for (const c of cases) {
        const total = await countOf(c.filter);
        const deep = await deepCursor(c.filter, total);
        for (const limit of [10, 100]) {
          for (const page of ['first', 'deep'] as const) {
            const filter: OrderFilter = {
              ...c.filter,
              limit,
              ...(page === 'deep' && deep ? { after: deep } : {}),
            };
            const [list] = await statementCosts(knex, recorder, () => repo.list(filter), {
              text: process.env.BENCH_PLANS === '1',
            });
            const median = await medianMs(() => repo.list(filter), RUNS);
            console.log(
              [
                c.name,
                limit,
                page,
                total,
                list!.executionMs.toFixed(2),
                list!.rowsRead,
                median.toFixed(2),
              ].join(' | '),
            );
            if (list!.text) console.log(list!.text.replace(/^/gm, '    '));
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
