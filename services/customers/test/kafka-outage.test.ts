// Without Kafka the service stays ready and keeps working; the events wait in the outbox.
import { randomUUID } from 'node:crypto';
import { type Harness, startHarness } from './support/customers-harness';

let h: Harness;
beforeAll(async () => {
  // Nothing listens on port 9 (discard): every Kafka connection is refused.
  h = await startHarness({ env: { KAFKA_BROKERS: '127.0.0.1:9' } });
});
afterAll(() => h?.stop());

it('stays ready with a degraded note, creates users and keeps their events in the outbox', async () => {
  const ready = await h.http().get('/readyz');
  expect(ready.status).toBe(200);
  expect(ready.body.checks).toMatchObject({ postgres: 'ok', kafka: expect.stringMatching(/^degraded: /) });

  const custId = `OUT-${h.suffix}`;
  await h.admin.createCustomer({ cust_id: custId, name: 'Outage Co' });
  const login = `out.${randomUUID().slice(0, 8)}`;
  const res = await h
    .http()
    .post('/v1/users')
    .set('X-Ordering-Identity', h.identity(custId, ['users:write']))
    .send({ login, email: `${login}@example.com`, name: 'Out' });
  expect(res.status).toBe(201);
  const pending = await h
    .knex('outbox')
    .whereNull('published_at')
    .where({ event_type: 'user.created', key: login });
  expect(pending).toHaveLength(1);
});
