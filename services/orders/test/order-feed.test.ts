// Fulfilment updates and approval outcomes reaching the orders service over the real Kafka topics:
// legal updates applied once (redeliveries and repeats change nothing), illegal ones dead-lettered
// with the reason, and every resulting event on the orders topic in order for that order.
import { randomUUID } from 'node:crypto';
import type { Producer } from 'kafkajs';
import { type ApprovalOutcome, type FulfilmentUpdate, TOPICS } from '@ordering/contracts';
import { DEAD_LETTER_HEADERS } from '@ordering/messaging';
import { type ReadMessage, type TopicReader, readTopic, testKafkaClient, waitUntil } from '@ordering/testing';
import { type OrdersHarness, seedAccounts, startOrdersHarness } from './support/orders-harness';

let h: OrdersHarness;
let s: Awaited<ReturnType<typeof seedAccounts>>;
let producer: Producer;
let ordersTopic: TopicReader;
let deadLetters: TopicReader;
const kafka = testKafkaClient();

beforeAll(async () => {
  h = await startOrdersHarness();
  s = await seedAccounts(h);
  h.chains.set(s.root, [s.users.approver]);
  producer = kafka.producer();
  await producer.connect();
  [ordersTopic, deadLetters] = await Promise.all([
    readTopic(kafka, TOPICS.orders),
    readTopic(kafka, TOPICS.deadLetter),
  ]);
});
afterAll(async () => {
  await Promise.all([ordersTopic?.stop(), deadLetters?.stop(), producer?.disconnect()]);
  await h?.stop();
});

async function placeOrder(items = [{ item_code: 'PEN-BLUE', quantity: 2 }]): Promise<string> {
  const res = await h
    .http()
    .post('/v1/orders')
    .set('X-Ordering-Identity', h.identity(s.root, s.users.shopper, ['orders:write']))
    .send({ cust_id: s.root, shipping_address_id: s.addresses.root, items });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

const send = (topic: string, key: string, value: unknown) =>
  producer.send({ topic, messages: [{ key, value: JSON.stringify(value) }] });

function fulfilment(
  orderId: string,
  status: FulfilmentUpdate['status'],
  id = `ful_${randomUUID()}`,
): FulfilmentUpdate {
  const base = { id, order_id: orderId, occurred_at: new Date().toISOString() };
  if (status === 'shipped') {
    return {
      ...base,
      status,
      shipment: {
        carrier: 'UPS',
        tracking_number: '1Z999',
        shipped_at: '2026-11-24T10:00:00Z',
        estimated_delivery: '2026-11-27',
      },
    };
  }
  return { ...base, status } as FulfilmentUpdate;
}

const statusOf = async (orderId: string) =>
  (await h.orders.knex('orders').where({ id: orderId }).first()).status as string;
const typesOf = (orderId: string) =>
  ordersTopic.messages
    .filter((m) => m.key === orderId)
    .map((m) => (JSON.parse(m.value!) as { type: string }).type);

it('fulfils an order to delivered, applying a redelivered update once, events in order', async () => {
  const orderId = await placeOrder();
  const inProduction = fulfilment(orderId, 'in_production');
  await send(TOPICS.fulfilment, orderId, inProduction);
  await send(TOPICS.fulfilment, orderId, inProduction); // redelivery: same id
  await send(TOPICS.fulfilment, orderId, fulfilment(orderId, 'in_production')); // a repeat: no change
  await send(TOPICS.fulfilment, orderId, fulfilment(orderId, 'shipped'));
  await send(TOPICS.fulfilment, orderId, fulfilment(orderId, 'delivered'));
  await waitUntil(async () => (await statusOf(orderId)) === 'delivered', 20_000, 'delivered');
  await ordersTopic.waitFor(() => typesOf(orderId).length >= 5, 20_000);
  expect(typesOf(orderId)).toEqual([
    'order.submitted',
    'order.approved',
    'order.in_production',
    'order.shipped',
    'order.delivered',
  ]);
  const shipped = ordersTopic.messages
    .filter((m) => m.key === orderId)
    .map((m) => JSON.parse(m.value!) as { type: string; data: Record<string, unknown> })
    .find((e) => e.type === 'order.shipped')!;
  expect(shipped.data).toMatchObject({
    id: orderId,
    object: 'order',
    status: 'shipped',
    shipment: { carrier: 'UPS', tracking_number: '1Z999', estimated_delivery: '2026-11-27' },
  });
  const order = await h
    .http()
    .get(`/v1/orders/${orderId}`)
    .set('X-Ordering-Identity', h.identity(s.root, s.users.shopper, ['orders:read']));
  expect(order.body).toMatchObject({ status: 'delivered', shipment: { carrier: 'UPS' } });
});

it('dead-letters an illegal update with the reason and leaves the order as it was', async () => {
  const orderId = await placeOrder();
  const skip = fulfilment(orderId, 'delivered');
  await send(TOPICS.fulfilment, orderId, skip);
  const unknown = fulfilment('ord_unknown', 'in_production');
  await send(TOPICS.fulfilment, 'ord_unknown', unknown);
  // This service's letters only (another orders harness running at the same time consumes the same
  // fulfilment topic in its own group and dead-letters our orders as unknown to it), and both keys,
  // not two letters: a redelivery (at least once) may dead-letter the same update twice.
  const ours = (ms: ReadMessage[]) =>
    ms.filter((m) => m.headers[DEAD_LETTER_HEADERS.consumerGroup] === h.groupId);
  const letters = ours(
    await deadLetters.waitFor(
      (ms) => ours(ms).some((m) => m.key === orderId) && ours(ms).some((m) => m.key === 'ord_unknown'),
      20_000,
    ),
  );
  const letter = letters.find((m) => m.key === orderId)!;
  expect(letter.headers[DEAD_LETTER_HEADERS.reason]).toBe('permanent_error');
  expect(letter.headers[DEAD_LETTER_HEADERS.error]).toMatch(
    /illegal transition: order .* is approved; delivered/,
  );
  expect(JSON.parse(letter.value!)).toMatchObject({ id: skip.id, status: 'delivered' });
  expect(letters.find((m) => m.key === 'ord_unknown')!.headers[DEAD_LETTER_HEADERS.error]).toMatch(
    /unknown order/,
  );
  expect(await statusOf(orderId)).toBe('approved');

  // A cancelled order cannot go into production either.
  await h
    .http()
    .post(`/v1/orders/${orderId}/cancel`)
    .set('X-Ordering-Identity', h.identity(s.root, s.users.shopper, ['orders:write']))
    .send({});
  const late = fulfilment(orderId, 'in_production');
  await send(TOPICS.fulfilment, orderId, late);
  await deadLetters.waitFor((ms) => ms.some((m) => m.value?.includes(late.id)), 20_000);
  expect(await statusOf(orderId)).toBe('cancelled');
});

it('turns approval outcomes into order.approval.requested and order.approved; ignores one after a cancel', async () => {
  const orderId = await placeOrder([{ item_code: 'CHAIR-ERGO', quantity: 2 }]);
  const outcome = (type: ApprovalOutcome['type'], extra: Record<string, unknown>) => ({
    id: `apo_${randomUUID()}`,
    type,
    order_id: orderId,
    cust_id: s.root,
    occurred_at: new Date().toISOString(),
    ...extra,
  });
  await send(
    TOPICS.approvals,
    orderId,
    outcome('approval.step_opened', { approval: { id: 'apr_1', approver: s.users.approver, step: 1 } }),
  );
  await send(
    TOPICS.approvals,
    orderId,
    outcome('approval.chain_approved', { approved_by: { login: s.users.approver, name: 'Adam' } }),
  );
  await waitUntil(async () => (await statusOf(orderId)) === 'approved', 20_000, 'approved');
  await ordersTopic.waitFor(() => typesOf(orderId).length >= 3, 20_000);
  expect(typesOf(orderId)).toEqual(['order.submitted', 'order.approval.requested', 'order.approved']);
  const requested = ordersTopic.messages
    .map((m) => JSON.parse(m.value!))
    .find((e) => e.type === 'order.approval.requested' && e.data.id === orderId);
  expect(requested.data).toMatchObject({
    status: 'pending_approval',
    approval: { id: 'apr_1', approver: s.users.approver, step: 1 },
  });

  const other = await placeOrder([{ item_code: 'CHAIR-ERGO', quantity: 2 }]);
  await h
    .http()
    .post(`/v1/orders/${other}/cancel`)
    .set('X-Ordering-Identity', h.identity(s.root, s.users.shopper, ['orders:write']))
    .send({});
  await send(TOPICS.approvals, other, {
    ...outcome('approval.chain_approved', { approved_by: { login: 'x', name: 'X' } }),
    order_id: other,
  });
  const marker = await placeOrder();
  await send(TOPICS.fulfilment, marker, fulfilment(marker, 'in_production'));
  await waitUntil(async () => (await statusOf(marker)) === 'in_production', 20_000, 'marker');
  expect(await statusOf(other)).toBe('cancelled');
});
