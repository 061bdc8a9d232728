// decisions.md scopes an Idempotency-Key to "the client plus the key": each service refuses a key
// reused on another of its own endpoints; the gateway refuses one reused on another service's.
import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { expectApiError } from './support/api-assertions';
import { type Harness, startHarness } from './support/gateway-harness';

let h: Harness;
const SCOPES = 'orders:write users:write admin:all';

beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.stop());
beforeEach(() => Object.values(h.upstreams).forEach((u) => u.reset()));

const post = (path: string, key: string, clientId = 'client-a', login = 'alice') =>
  request(h.url)
    .post(path)
    .set('Authorization', `Bearer ${h.issuer.mint({ scope: SCOPES, client_id: clientId, login })}`)
    .set('Idempotency-Key', key)
    .send({ any: 'body' });

it("refuses a key the client already used on another service's creating POST, before that service", async () => {
  const key = randomUUID();
  await post('/v1/orders', key).expect(200);
  const reused = await post('/v1/users', key);
  expectApiError(reused, 422, 'idempotency_error', 'idempotency_key_reused');
  expect(reused.body.error.message).toContain('POST /v1/orders');
  expect(h.upstreams.customers.received).toHaveLength(0);
  const alsoReused = await post('/v1/webhooks', key);
  expectApiError(alsoReused, 422, 'idempotency_error', 'idempotency_key_reused');
  expect(h.upstreams.webhooks.received).toHaveLength(0);
});

it('passes a retry on the same endpoint to its service, which replays or refuses by the body', async () => {
  const key = randomUUID();
  await post('/v1/orders', key).expect(200);
  await post('/v1/orders', key).expect(200);
  expect(h.upstreams.orders.received).toHaveLength(2);
  expect(h.upstreams.orders.last?.headers['idempotency-key']).toBe(key);
});

it("keeps each client's keys apart, and ignores keys on POSTs that create nothing", async () => {
  const key = randomUUID();
  await post('/v1/orders', key, 'client-a').expect(200);
  await post('/v1/users', key, 'client-b').expect(200);
  await post('/v1/orders/ord_1/cancel', key, 'client-a').expect(200);
  expect(h.upstreams.customers.received).toHaveLength(1);
  expect(h.upstreams.orders.received).toHaveLength(2);
});

it('keeps the keys of two users of one client apart (a web app signs many users in)', async () => {
  const key = randomUUID();
  await post('/v1/orders', key, 'client-web', 'sam').expect(200);
  await post('/v1/users', key, 'client-web', 'april').expect(200);
  expect(h.upstreams.customers.received).toHaveLength(1);
  const reused = await post('/v1/users', key, 'client-web', 'sam');
  expectApiError(reused, 422, 'idempotency_error', 'idempotency_key_reused');
});
