// GET /v1/users and GET /v1/customers at production-like volume: 2,000 accounts (50 trees of 40),
// 60,000 users, 20,000 of them in one account whose tree holds 25,000, seeded in a database of its
// own (the service's migrations). Runs the repositories' own list queries for each filter at limit
// 10 and 100, first page and after a cursor half-way down, and prints the plan's execution time
// (EXPLAIN ANALYZE, BUFFERS; the sum over the statements of the call), the rows read, and the
// median wall time of the repository call. Prints figures; it is not a timed test. The seeded
// database is kept (BENCH_RESEED=1 seeds again; BENCH_DROP=1 drops it at the end).
//
//   pnpm --filter @ordering/customers-service bench:lists   [DATABASE_NAME_PREFIX=... BENCH_RUNS=5]
import type { Knex } from '@ordering/db';
import { medianMs, statementCosts, statementRecorder, withBenchDatabase } from '@ordering/testing';
import { migrations } from '../migrations';
import { type AccountListQuery, CustomerRepository } from '../src/data-access/customer-repository';
import { type UserListQuery, UserRepository } from '../src/data-access/user-repository';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const BIG = 'cust_0000';

async function seed(knex: Knex): Promise<void> {
  // Accounts cust_0000..cust_1999: every 40th a top-level account, the 39 after it its children.
  await knex.raw(`
    INSERT INTO customers (cust_id, name, parent_cust_id, currency, billing_terms, created_at, updated_at)
    SELECT 'cust_' || lpad(g::text, 4, '0'), 'Account ' || g,
      CASE WHEN g % 40 = 0 THEN NULL ELSE 'cust_' || lpad((g - g % 40)::text, 4, '0') END,
      'USD', 'net30', now(), now()
    FROM generate_series(0, 1999) g ORDER BY g`);
  await knex.raw(`
    INSERT INTO addresses (id, cust_id, type, label, street_1, city, region, postal_code, country, is_default, created_at)
    SELECT 'addr_' || g || '_' || a, 'cust_' || lpad(g::text, 4, '0'), 'shipping', 'Site ' || a, a || ' Main St',
      'Springfield', 'IL', '62701', 'US', a = 0, now()
    FROM generate_series(0, 1999) g CROSS JOIN generate_series(0, 2) a`);
  // 20,000 users in the big account, 5,000 in its children, 35,000 elsewhere; 1 in 50 deactivated,
  // 1 in 100 an admin, 1 in 20 an approver.
  await knex.raw(`
    INSERT INTO users (login, cust_id, name, email, roles, status, created_at, updated_at, deactivated_at)
    SELECT 'user' || lpad(g::text, 6, '0') || '@example.com',
      CASE WHEN g <= 20000 THEN '${BIG}' WHEN g <= 25000 THEN 'cust_' || lpad((1 + g % 39)::text, 4, '0')
           ELSE 'cust_' || lpad((40 + g % 1960)::text, 4, '0') END,
      'User ' || g, 'user' || g || '@example.com',
      CASE WHEN g % 100 = 0 THEN ARRAY['shopper','admin'] WHEN g % 20 = 0 THEN ARRAY['shopper','approver'] ELSE ARRAY['shopper'] END,
      CASE WHEN g % 50 = 0 THEN 'deactivated' ELSE 'active' END,
      timestamptz '2025-01-01' + g * interval '10 minutes', now(),
      CASE WHEN g % 50 = 0 THEN now() END
    FROM generate_series(1, 60000) g`);
  await knex.raw('ANALYZE customers; ANALYZE addresses; ANALYZE users');
}

async function main(): Promise<void> {
  await withBenchDatabase(
    {
      name: 'customers_list_bench',
      migrations,
      seededTable: 'users',
      seed,
      describe: '2,000 accounts, 6,000 addresses, 60,000 users',
    },
    async (knex) => {
      const users = new UserRepository(knex);
      const customers = new CustomerRepository(knex);
      const recorder = statementRecorder(knex);
      /** Plan ms and rows read of every statement `call` sends, and the call's median wall time. */
      async function measure(call: () => Promise<unknown>): Promise<string> {
        const costs = await statementCosts(knex, recorder, call);
        const ms = costs.reduce((sum, c) => sum + c.executionMs, 0);
        const read = costs.reduce((sum, c) => sum + c.rowsRead, 0);
        return `${ms.toFixed(2)} | ${read} | ${(await medianMs(call, RUNS)).toFixed(2)}`;
      }
      console.log(
        'endpoint | case | limit | page | rows matching | plan ms | rows read | repository call ms (median)',
      );
      const userCases: { name: string; query: Omit<UserListQuery, 'limit' | 'afterLogin'> }[] = [
        { name: 'tree of the big account', query: { reachOf: BIG } },
        { name: 'cust_id=big account', query: { reachOf: BIG, custId: BIG } },
        { name: 'cust_id=a sub-account', query: { reachOf: BIG, custId: 'cust_0007' } },
        { name: 'status=deactivated', query: { reachOf: BIG, status: 'deactivated' } },
        { name: 'role=admin', query: { reachOf: BIG, role: 'admin' } },
        { name: 'a small tree (40 accounts, 700 users)', query: { reachOf: 'cust_0400' } },
      ];
      for (const c of userCases) {
        const all = await users.list({ ...c.query, limit: 100_000 });
        const middle = all[Math.floor(all.length / 2)];
        for (const limit of [10, 100]) {
          for (const page of ['first', 'deep'] as const) {
            const query: UserListQuery = {
              ...c.query,
              limit,
              ...(page === 'deep' && middle ? { afterLogin: middle.login } : {}),
            };
            console.log(
              `GET /v1/users | ${c.name} | ${limit} | ${page} | ${all.length} | ${await measure(() => users.list(query))}`,
            );
          }
        }
      }
      const accountCases: { name: string; query: Omit<AccountListQuery, 'limit' | 'afterCustId'> }[] = [
        { name: 'reach of a tree (40 accounts)', query: { reachOf: 'cust_0400' } },
        {
          name: 'parent_cust_id within the reach',
          query: { reachOf: 'cust_0400', parentCustId: 'cust_0400' },
        },
        { name: 'every account (operator)', query: {} },
      ];
      for (const c of accountCases) {
        const all = await customers.list({ ...c.query, limit: 100_000 });
        const middle = all[Math.floor(all.length / 2)];
        for (const limit of [10, 100]) {
          for (const page of ['first', 'deep'] as const) {
            const query: AccountListQuery = {
              ...c.query,
              limit,
              ...(page === 'deep' && middle ? { afterCustId: middle.cust_id } : {}),
            };
            console.log(
              `GET /v1/customers | ${c.name} | ${limit} | ${page} | ${all.length} | ${await measure(() => customers.list(query))}`,
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
