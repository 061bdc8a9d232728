// A page of a subscription's deliveries filtered by event type or status reads about a page of
// rows however many deliveries of other types or statuses the subscription has (README, "List
// endpoints at volume"), newest first. 20,000 deliveries, seeded in one statement.
import { type Knex, migrateRollbackAll } from '@ordering/db';
import {
  type StatementRecorder,
  type TestDatabase,
  createTestDatabase,
  statementCosts,
  statementRecorder,
} from '@ordering/testing';
import { migrations } from '../migrations';
import { type DeliveryFilter, DeliveryRepository } from '../src/data-access/delivery-repository';

let db: TestDatabase;
let knex: Knex;
let repo: DeliveryRepository;
let recorder: StatementRecorder;

beforeAll(async () => {
  db = await createTestDatabase({ service: 'webhooks', migrations, poolMax: 2 });
  knex = db.knex;
  await knex('webhook_subscriptions').insert({
    id: 'whs_1',
    cust_id: 'C',
    url: 'https://hooks.example.com/',
    events: ['order.created'],
    status: 'enabled',
    created_at: new Date('2026-01-01'),
  });
  // Every 1,000th delivery is a `user.created`, every 500th one failed.
  await knex.raw(`
    INSERT INTO webhook_deliveries (id, subscription_id, event_id, event_type, event, status, created_at, updated_at)
    SELECT 'wdl_' || lpad(g::text, 6, '0'), 'whs_1', 'evt_' || g, t, jsonb_build_object('id', 'evt_' || g, 'type', t),
      CASE WHEN g % 500 = 0 THEN 'failed' ELSE 'succeeded' END,
      timestamptz '2026-10-01' + g * interval '1 minute', now()
    FROM generate_series(1, 20000) g,
      LATERAL (SELECT CASE WHEN g % 1000 = 0 THEN 'user.created' ELSE 'order.created' END AS t) x`);
  await knex.raw('ANALYZE webhook_deliveries');
  repo = new DeliveryRepository(knex);
  recorder = statementRecorder(knex);
}, 60_000);

afterAll(async () => {
  // The new migrations revert too.
  if (knex) await migrateRollbackAll(knex, migrations);
  await db?.drop();
});

it.each([
  ['event_type=user.created', { eventType: 'user.created' }, 20, 1000],
  ['status=failed', { status: 'failed' as const }, 40, 500],
])('a page of 11 of %s shows the newest ones and reads about a page of rows', async (_n, f, total, step) => {
  const filter: DeliveryFilter = { ...f, limit: 11 };
  let page: Awaited<ReturnType<DeliveryRepository['list']>> = [];
  const [list] = await statementCosts(knex, recorder, async () => {
    page = await repo.list('whs_1', filter);
  });
  expect(page.map((d) => d.id)).toEqual(
    Array.from({ length: 11 }, (_, i) => `wdl_${String((total - i) * step).padStart(6, '0')}`),
  );
  expect(list!.rowsRead).toBeLessThan(100);
});
