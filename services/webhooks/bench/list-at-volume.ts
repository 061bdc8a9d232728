// The webhooks list endpoints at production-like volume: 10,000 subscriptions across 2,000
// accounts, one subscription with 200,000 deliveries of 3 attempts each (succeeded, failed and held
// pending ones among them), seeded in a database of its own (the service's migrations). Runs the
// repositories' own list queries (GET /v1/webhooks, GET /v1/webhooks/{id}/deliveries with each
// filter, and the attempts of the page) at limit 10 and 100, first page and after a cursor half-way
// down, and prints the plan's execution time (EXPLAIN ANALYZE, BUFFERS), the rows it read, and the
// median wall time of the repository calls. Prints figures; it is not a timed test. The seeded
// database is kept (BENCH_RESEED=1 seeds again; BENCH_DROP=1 drops it at the end).
//
//   pnpm --filter @ordering/webhooks-service bench:lists   [DATABASE_NAME_PREFIX=... BENCH_RUNS=5]
import type { Knex } from '@ordering/db';
import { medianMs, statementCosts, statementRecorder, withBenchDatabase } from '@ordering/testing';
import { migrations } from '../migrations';
import { type DeliveryFilter, DeliveryRepository } from '../src/data-access/delivery-repository';
import { SubscriptionRepository } from '../src/data-access/subscription-repository';

const RUNS = Number(process.env.BENCH_RUNS ?? 5);
const SUB = 'whs_big';
const DELIVERIES = 200_000;

async function seed(knex: Knex): Promise<void> {
  await knex.raw(`
    INSERT INTO webhook_subscriptions (id, cust_id, url, events, description, status, created_at)
    SELECT CASE WHEN g = 1 THEN '${SUB}' ELSE 'whs_' || lpad(g::text, 6, '0') END,
      'cust_' || (g % 2000), 'https://hooks.example.com/' || g, ARRAY['order.created','order.shipped'],
      NULL, CASE WHEN g % 50 = 0 THEN 'disabled' ELSE 'enabled' END,
      timestamptz '2026-01-01' + g * interval '1 minute'
    FROM generate_series(1, 10000) g`);
  // 200k deliveries over 60 days: 1 in 40 failed (24 h horizon), the newest 2,000 pending (held
  // while the receiver was down), the rest succeeded; six event types, user.created rare.
  await knex.raw(`
    INSERT INTO webhook_deliveries (id, subscription_id, event_id, event_type, event, resource_key, status,
      attempt_count, next_attempt_at, first_attempt_at, created_at, updated_at)
    SELECT 'wdl_' || lpad(g::text, 7, '0'), '${SUB}', 'evt_' || g, t.type,
      jsonb_build_object('id', 'evt_' || g, 'type', t.type, 'cust_id', 'cust_1', 'data', '{}'::jsonb),
      'ord_' || (g / 5),
      CASE WHEN g > ${DELIVERIES - 2000} THEN 'pending' WHEN g % 40 = 0 THEN 'failed' ELSE 'succeeded' END,
      3, CASE WHEN g > ${DELIVERIES - 2000} THEN timestamptz '2026-11-01' + interval '1 hour' END,
      created, created, created
    FROM generate_series(1, ${DELIVERIES}) g,
      LATERAL (SELECT (ARRAY['order.created','order.approved','order.in_production','order.shipped',
        'order.delivered','order.created','order.approved','order.shipped','order.delivered',
        'order.created'])[1 + g % 10] AS type,
        timestamptz '2026-09-01' + g * interval '25.92 seconds' AS created) t`);
  await knex.raw(`UPDATE webhook_deliveries SET event_type = 'user.created' WHERE right(id, 3) = '997'`);
  await knex.raw(`
    INSERT INTO webhook_delivery_attempts (delivery_id, attempted_at, status_code, latency_ms, error)
    SELECT d.id, d.created_at + a * interval '30 seconds',
      CASE WHEN d.status = 'succeeded' AND a = 2 THEN 200 ELSE 503 END, 120, NULL
    FROM webhook_deliveries d CROSS JOIN generate_series(0, 2) a`);
  await knex.raw(
    'ANALYZE webhook_subscriptions; ANALYZE webhook_deliveries; ANALYZE webhook_delivery_attempts',
  );
}

const cases: { name: string; filter: Omit<DeliveryFilter, 'limit' | 'before'> }[] = [
  { name: 'all', filter: {} },
  { name: 'status=failed', filter: { status: 'failed' } },
  { name: 'status=pending (held)', filter: { status: 'pending' } },
  { name: 'status=succeeded', filter: { status: 'succeeded' } },
  { name: 'event_type=order.shipped', filter: { eventType: 'order.shipped' } },
  { name: 'event_type=user.created (rare)', filter: { eventType: 'user.created' } },
  {
    name: 'created_after+before (one day, a month ago)',
    filter: { createdAfter: new Date('2026-10-01'), createdBefore: new Date('2026-10-02') },
  },
  {
    name: 'status=failed, event_type=order.created',
    filter: { status: 'failed', eventType: 'order.created' },
  },
  {
    name: 'status=failed, created_after (last 7 days)',
    filter: { status: 'failed', createdAfter: new Date('2026-10-23') },
  },
];

async function main(): Promise<void> {
  await withBenchDatabase(
    {
      name: 'webhooks_list_bench',
      migrations,
      seededTable: 'webhook_deliveries',
      seed,
      describe: '10,000 subscriptions, 200,000 deliveries, 600,000 attempts',
    },
    async (knex) => {
      const deliveries = new DeliveryRepository(knex);
      const subscriptions = new SubscriptionRepository(knex);
      const recorder = statementRecorder(knex);
      /** Plan ms and rows read of each statement `call` sends, and the call's median wall time. */
      async function measure(call: () => Promise<unknown>): Promise<string> {
        const costs = await statementCosts(knex, recorder, call, { text: process.env.BENCH_PLANS === '1' });
        for (const c of costs) if (c.text) console.log(c.text.replace(/^/gm, '    '));
        const plans = costs.map((c) => `${c.executionMs.toFixed(2)} ms / ${c.rowsRead} rows`);
        return `${plans.join(' + ')} | ${(await medianMs(call, RUNS)).toFixed(2)}`;
      }
      console.log(
        'endpoint | case | limit | page | rows matching | plan ms / rows read (list + attempts) | calls ms (median)',
      );
      for (const limit of [10, 100]) {
        const deepSub = (await knex('webhook_subscriptions')
          .where({ cust_id: 'cust_1' })
          .orderBy('id')
          .offset(2)
          .first()) as { id: string };
        for (const page of ['first', 'deep'] as const) {
          const options = { limit, ...(page === 'deep' ? { afterId: deepSub.id } : {}) };
          console.log(
            `GET /v1/webhooks | 5 per account | ${limit} | ${page} | 5 | ${await measure(() => subscriptions.list('cust_1', options))}`,
          );
        }
      }
      for (const c of cases) {
        const base = knex('webhook_deliveries').where({ subscription_id: SUB });
        if (c.filter.status) void base.andWhere({ status: c.filter.status });
        if (c.filter.eventType) void base.andWhere({ event_type: c.filter.eventType });
        if (c.filter.createdAfter) void base.andWhere('created_at', '>=', c.filter.createdAfter);
        if (c.filter.createdBefore) void base.andWhere('created_at', '<', c.filter.createdBefore);
        const [{ total }] = (await base.clone().count({ total: '*' })) as [{ total: string }];
        const middle = (await base
          .clone()
          .select('created_at', 'id')
          .orderBy([
            { column: 'created_at', order: 'desc' },
            { column: 'id', order: 'desc' },
          ])
          .offset(Math.floor(Number(total) / 2))
          .first()) as { created_at: Date; id: string } | undefined;
        for (const limit of [10, 100]) {
          for (const page of ['first', 'deep'] as const) {
            const filter: DeliveryFilter = {
              ...c.filter,
              limit,
              ...(page === 'deep' && middle
                ? { before: { createdAt: middle.created_at, id: middle.id } }
                : {}),
            };
            const figures = await measure(async () => {
              const rows = await deliveries.list(SUB, filter);
              await deliveries.attemptsOf(rows.map((r) => r.id));
            });
            console.log(
              `GET /v1/webhooks/{id}/deliveries | ${c.name} | ${limit} | ${page} | ${total} | ${figures}`,
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
