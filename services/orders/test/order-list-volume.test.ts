// The order list reads about one page of rows per page at any depth (README, "List endpoints at
// volume"), and answers exactly the orders, in exactly the order, of the plain query it replaced
// (`WHERE cust_id IN (...) ... ORDER BY submitted_at DESC, id DESC LIMIT n`), for every filter and
// viewer, on the first page and after cursors down the list. 20k orders, seeded in one statement.
import { type Knex, migrateRollbackAll } from '@ordering/db';
import type { OrderStatus } from '@ordering/contracts';
import {
  type StatementRecorder,
  type TestDatabase,
  createTestDatabase,
  statementCosts,
  statementRecorder,
} from '@ordering/testing';
import { migrations } from '../migrations';
import { type OrderFilter, OrderRepository } from '../src/data-access/order-repository';

let db: TestDatabase;
let knex: Knex;
let repo: OrderRepository;
let recorder: StatementRecorder;

const TREE = ['T', 'T1', 'T2', 'T3'];

beforeAll(async () => {
  db = await createTestDatabase({ service: 'orders', migrations, poolMax: 2 });
  knex = db.knex;
  // 12k orders in T, 2k in each sub-account, 2k in an unrelated X; submission times repeat (every
  // 7 orders share one), so the id breaks ties; the approver `appr` had every 10th order of the
  // tree in their queue, and every order was in some other approver's queue.
  await knex.raw(`
    INSERT INTO orders (id, cust_id, ordered_by_login, ordered_by_name, status, currency, subtotal, tax,
      shipping, total, shipping_address, submitted_at, updated_at)
    SELECT 'ord_' || md5(g::text),
      CASE WHEN g <= 12000 THEN 'T' WHEN g <= 18000 THEN 'T' || (1 + g % 3) ELSE 'X' END,
      'buyer_' || (g % 30), 'Buyer',
      (ARRAY['delivered','delivered','delivered','shipped','in_production','approved','pending_approval',
             'cancelled','delivered','delivered'])[1 + g % 10],
      'USD', 100, 0, 0, 100, '{}', timestamptz '2026-11-01' - ((g * 7919) % 20000 / 7) * interval '1 hour', now()
    FROM generate_series(1, 20000) g`);
  await knex.raw(`
    INSERT INTO order_items (id, order_id, position, item_code, description, quantity, unit_price, line_total)
    SELECT id || '_0', id, 0, 'SKU', 'Item', 1, 100, 100 FROM orders`);
  await knex.raw(`
    INSERT INTO order_approvers (order_id, approver)
    SELECT id, 'appr' FROM orders WHERE cust_id <> 'X' AND ascii(right(id, 1)) % 10 = 0
    UNION ALL SELECT id, 'other_' || ascii(right(id, 1)) % 20 FROM orders`);
  await knex.raw('ANALYZE orders; ANALYZE order_approvers');
  repo = new OrderRepository(knex);
  recorder = statementRecorder(knex);
}, 60_000);

afterAll(async () => {
  // The new migrations revert too.
  if (knex) await migrateRollbackAll(knex, migrations);
  await db?.drop();
});

/** The list as the single plain query answered it before (the reference). */
async function reference(f: OrderFilter): Promise<string[]> {
  const q = knex('orders')
    .select('id')
    .whereIn('cust_id', f.custIds)
    .orderBy([
      { column: 'submitted_at', order: 'desc' },
      { column: 'id', order: 'desc' },
    ])
    .limit(f.limit);
  if (f.ownOrQueuedFor !== undefined) {
    const login = f.ownOrQueuedFor;
    void q.where((w) =>
      w
        .where('ordered_by_login', login)
        .orWhereIn('id', knex('order_approvers').select('order_id').where('approver', login)),
    );
  }
  if (f.status) void q.where('status', f.status);
  if (f.createdAfter) void q.where('submitted_at', '>=', f.createdAfter);
  if (f.after) void q.whereRaw('(submitted_at, id) < (?, ?)', [f.after.submittedAt, f.after.id]);
  return ((await q) as { id: string }[]).map((r) => r.id);
}

const views: { name: string; filter: Omit<OrderFilter, 'limit'> }[] = [];
for (const custIds of [TREE, ['T'], ['T2'], ['X', 'T3'], ['T1', 'T1', 'T2']]) {
  for (const ownOrQueuedFor of [undefined, 'buyer_3', 'appr']) {
    for (const status of [undefined, 'shipped', 'pending_approval'] as (OrderStatus | undefined)[]) {
      for (const createdAfter of [undefined, new Date('2026-10-20')]) {
        views.push({
          name: `${custIds.join('+')} ${ownOrQueuedFor ?? 'tree'} ${status ?? 'any'} ${createdAfter ? 'recent' : 'all'}`,
          filter: {
            custIds,
            ...(ownOrQueuedFor ? { ownOrQueuedFor } : {}),
            ...(status ? { status } : {}),
            ...(createdAfter ? { createdAfter } : {}),
          },
        });
      }
    }
  }
}

it('answers the same orders in the same order as the plain query, at every depth', async () => {
  for (const view of views) {
    const all = await reference({ ...view.filter, limit: 100_000 });
    const positions = await knex('orders')
      .whereIn(
        'id',
        [0, 37, Math.floor(all.length / 2), all.length - 5].map((i) => all[i]).filter(Boolean) as string[],
      )
      .select('id', 'submitted_at');
    for (const limit of [1, 11, 101]) {
      for (const after of [
        undefined,
        ...positions.map((p) => ({ submittedAt: p.submitted_at as Date, id: p.id as string })),
      ]) {
        const filter: OrderFilter = { ...view.filter, limit, ...(after ? { after } : {}) };
        const got = (await repo.list(filter)).map((o) => o.id);
        expect({ view: view.name, limit, after, ids: got }).toEqual({
          view: view.name,
          limit,
          after,
          ids: await reference(filter),
        });
      }
    }
  }
}, 60_000);

/** Rows the list query of this page read (EXPLAIN ANALYZE of the SQL the repository sent). */
async function rowsReadBy(filter: OrderFilter): Promise<number> {
  const [list] = await statementCosts(knex, recorder, () => repo.list(filter));
  return list!.rowsRead;
}

it.each([
  ['the whole tree', { custIds: TREE }],
  ['the tree, one status', { custIds: TREE, status: 'pending_approval' as OrderStatus }],
  ['one account, one status', { custIds: ['T'], status: 'cancelled' as OrderStatus }],
  ['an approver (own orders or queued)', { custIds: TREE, ownOrQueuedFor: 'appr' }],
])('reads about a page of rows for a page of 11 of %s, not the whole list', async (_name, view) => {
  const first = await repo.list({ ...view, limit: 1000 });
  const deep = first[first.length - 1]!;
  for (const after of [undefined, { submittedAt: new Date(deep.state.submitted_at), id: deep.id }]) {
    // At most one page per account of the tree (4) and per source of a shopper's view (2), with
    // their index entries: far below the thousands of orders each view holds.
    expect(await rowsReadBy({ ...view, limit: 11, ...(after ? { after } : {}) })).toBeLessThan(200);
  }
});
