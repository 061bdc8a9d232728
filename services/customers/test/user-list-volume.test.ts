// GET /v1/users reads about a page of users per page however many users the platform and the tree
// hold (README, "List endpoints at volume"), and answers exactly the users, in exactly the order,
// of the plain query it replaced (`cust_id IN (tree) ... ORDER BY login LIMIT n`), for every filter,
// on the first page and after cursors down the list. 12,000 users, seeded in one statement.
import type { Knex } from '@ordering/db';
import {
  type StatementRecorder,
  type TestDatabase,
  createTestDatabase,
  statementCosts,
  statementRecorder,
} from '@ordering/testing';
import { migrations } from '../migrations';
import { reachQuery } from '../src/data-access/customer-repository';
import { type UserListQuery, UserRepository } from '../src/data-access/user-repository';

let db: TestDatabase;
let knex: Knex;
let repo: UserRepository;
let recorder: StatementRecorder;

beforeAll(async () => {
  db = await createTestDatabase({ service: 'customers', migrations, poolMax: 2 });
  knex = db.knex;
  // Accounts a00..a49: a00 has children a01..a09, a10 has a11..a19, and so on. 8,000 users in a00,
  // 2,000 in its children, 2,000 spread over the other trees, whose logins sort after the others (`z...`).
  await knex.raw(`
    INSERT INTO customers (cust_id, name, parent_cust_id, currency, billing_terms, created_at, updated_at)
    SELECT 'a' || lpad(g::text, 2, '0'), 'A', CASE WHEN g % 10 = 0 THEN NULL ELSE 'a' || lpad((g - g % 10)::text, 2, '0') END,
      'USD', 'net30', now(), now()
    FROM generate_series(0, 49) g ORDER BY g`);
  await knex.raw(`
    INSERT INTO users (login, cust_id, name, email, roles, status, created_at, updated_at)
    SELECT CASE WHEN g <= 10000 THEN '' ELSE 'z' END || md5(g::text) || '@example.com',
      CASE WHEN g <= 8000 THEN 'a00' WHEN g <= 10000 THEN 'a0' || (1 + g % 9) ELSE 'a' || lpad((10 + g % 40)::text, 2, '0') END,
      'U', 'u' || g || '@example.com',
      CASE WHEN g % 37 = 0 THEN ARRAY['shopper','admin'] ELSE ARRAY['shopper'] END,
      CASE WHEN g % 23 = 0 THEN 'deactivated' ELSE 'active' END, now(), now()
    FROM generate_series(1, 12000) g`);
  await knex.raw('ANALYZE customers; ANALYZE users');
  repo = new UserRepository(knex);
  recorder = statementRecorder(knex);
}, 60_000);

afterAll(() => db?.drop());

/** The list as the single plain query answered it before (the reference). */
async function reference(query: UserListQuery): Promise<string[]> {
  const q = knex('users')
    .select('login')
    .whereIn('cust_id', reachQuery(knex, query.reachOf))
    .orderBy('login')
    .limit(query.limit);
  if (query.custId !== undefined) void q.where('cust_id', query.custId);
  if (query.status !== undefined) void q.where('status', query.status);
  if (query.role !== undefined) void q.whereRaw('? = ANY(roles)', [query.role]);
  if (query.afterLogin !== undefined) void q.where('login', '>', query.afterLogin);
  return ((await q) as { login: string }[]).map((r) => r.login);
}

it('answers the same users in the same order as the plain query, at every depth', async () => {
  const views: Omit<UserListQuery, 'limit'>[] = [];
  for (const reachOf of ['a00', 'a03', 'a20']) {
    for (const custId of [undefined, 'a00', 'a05', 'a21']) {
      for (const status of [undefined, 'deactivated' as const]) {
        for (const role of [undefined, 'admin' as const]) {
          views.push({
            reachOf,
            ...(custId ? { custId } : {}),
            ...(status ? { status } : {}),
            ...(role ? { role } : {}),
          });
        }
      }
    }
  }
  for (const view of views) {
    const all = await reference({ ...view, limit: 100_000 });
    const cursors = [undefined, ...[0, 13, Math.floor(all.length / 2), all.length - 3].map((i) => all[i])];
    for (const limit of [1, 11, 101]) {
      for (const afterLogin of cursors) {
        if (afterLogin === undefined && cursors.indexOf(afterLogin) > 0) continue;
        const query: UserListQuery = { ...view, limit, ...(afterLogin ? { afterLogin } : {}) };
        const got = (await repo.list(query)).map((u) => u.login);
        expect({ query, got }).toEqual({ query, got: await reference(query) });
      }
    }
  }
}, 60_000);

it.each([
  ['the big tree', { reachOf: 'a00' }],
  ['a small tree among many users', { reachOf: 'a20' }],
])('a page of 11 users of %s reads about a page of rows', async (_name, view) => {
  const costs = await statementCosts(knex, recorder, () => repo.list({ ...view, limit: 11 }));
  const read = costs.reduce((sum, c) => sum + c.rowsRead, 0);
  // The tree's accounts (scanned for the reach: 50 accounts, twice) and a page per account of it.
  expect(read).toBeLessThan(400);
});
