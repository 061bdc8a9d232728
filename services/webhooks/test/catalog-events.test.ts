// catalog.item.updated: the catalog publishes one change message per item; each account with a
// subscription to that type (and whose view may have changed) gets the item as it sees it, read
// from the catalog when the delivery is sent; an account that cannot see the item gets nothing.
import { randomBytes } from 'node:crypto';
import { type CatalogItemChange, TOPICS, exampleCatalogItem } from '@ordering/contracts';
import { waitUntil } from '@ordering/testing';
import { disconnectProducer, type Harness, sharedProducer, startHarness } from './support/harness';
import { type Receiver, startReceiver } from './support/receiver';
import { verifyWithStripe } from './support/stripe-verifier';

let h: Harness;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startReceiver();
  h = await startHarness({ env: { DELIVERY_CLOCK_SPEED: '1000' } });
});
afterAll(async () => {
  await receiver?.close();
  await h?.stop();
  await disconnectProducer();
});

async function publishChange(change: Partial<CatalogItemChange> & { item_id: string }) {
  const message: CatalogItemChange = {
    id: `chg_${randomBytes(8).toString('hex')}`,
    item_code: change.item_id.toUpperCase(),
    changed: ['pricing'],
    cust_ids: null,
    occurred_at: new Date().toISOString(),
    ...change,
  };
  await (
    await sharedProducer()
  ).send({
    topic: TOPICS.catalogItems,
    messages: [
      {
        key: message.item_id,
        value: JSON.stringify(message),
        headers: { 'event-type': 'catalog.item.updated' },
      },
    ],
  });
  return message;
}

const priced = (itemId: string, amount: number) =>
  exampleCatalogItem({
    id: itemId,
    item_code: itemId.toUpperCase(),
    unit_price: { amount, currency: 'USD' },
  } as never);

it('each subscribing account gets the item as it sees it; one that cannot see it gets nothing', async () => {
  const P = h.P;
  const top = (
    await h.api(P).post('/v1/webhooks', { url: receiver.url('/cat/top'), events: ['catalog.item.updated'] })
  ).body;
  const child = (
    await h
      .api(`${P}-EU`)
      .post('/v1/webhooks', { url: receiver.url('/cat/eu'), events: ['catalog.item.updated'] })
  ).body;
  await h
    .api(`${P}-OTHER`)
    .post('/v1/webhooks', { url: receiver.url('/cat/hidden'), events: ['catalog.item.updated'] });
  await h
    .api(`${P}-EU-DE`)
    .post('/v1/webhooks', { url: receiver.url('/cat/users-only'), events: ['user.created'] });
  const itemId = `item_${randomBytes(4).toString('hex')}`;
  // Each account's own price; the unrelated account cannot see the item.
  h.itemViews.current = (id, custId) =>
    id !== itemId ? null : custId === P ? priced(id, 1000) : custId === `${P}-EU` ? priced(id, 900) : null;

  const change = await publishChange({ item_id: itemId, changed: ['pricing'] });
  await waitUntil(
    async () => receiver.received('/cat/top').length === 1 && receiver.received('/cat/eu').length === 1,
    15_000,
    'both views',
  );
  const topEvent = verifyWithStripe(
    receiver.received('/cat/top')[0]!.body,
    receiver.received('/cat/top')[0]!.headers['service-signature'],
    top.signing_secret,
  );
  const euEvent = verifyWithStripe(
    receiver.received('/cat/eu')[0]!.body,
    receiver.received('/cat/eu')[0]!.headers['service-signature'],
    child.signing_secret,
  );
  expect(topEvent).toMatchObject({
    object: 'event',
    type: 'catalog.item.updated',
    cust_id: P,
    created_at: change.occurred_at,
    data: { id: itemId, object: 'catalog_item', unit_price: { amount: 1000 } },
  });
  expect(euEvent).toMatchObject({
    type: 'catalog.item.updated',
    cust_id: `${P}-EU`,
    data: { id: itemId, unit_price: { amount: 900 } },
  });
  expect(receiver.received('/cat/top')[0]!.headers['service-event']).toBe('catalog.item.updated');
  // Views were asked only for subscribing accounts; the one that cannot see it has no delivery at all.
  const asked = h.viewRequests.filter((r) => r.item_id === itemId).flatMap((r) => r.cust_ids);
  expect(asked.sort()).toEqual([P, `${P}-EU`, `${P}-OTHER`].sort());
  await waitUntil(
    async () =>
      (
        await h.db
          .knex('webhook_deliveries')
          .where({ event_type: 'catalog.item.updated' })
          .whereRaw("event->'data'->>'id' = ?", [itemId])
      ).length === 2,
    5000,
    'the invisible delivery to be discarded',
  );
  expect(receiver.received('/cat/hidden')).toHaveLength(0);
  expect(receiver.received('/cat/users-only')).toHaveLength(0);
});

it('a change scoped to some accounts reaches only subscribers within that scope (and their descendants)', async () => {
  const P = h.P;
  const sub = (
    await h
      .api(`${P}-EU-DE`)
      .post('/v1/webhooks', { url: receiver.url('/cat/de'), events: ['catalog.item.updated'] })
  ).body;
  const itemId = `item_${randomBytes(4).toString('hex')}`;
  h.itemViews.current = (id) => (id === itemId ? priced(id, 700) : null);
  // A price list of the EU account: EU and EU-DE may see a new price; the top account and OTHER do not.
  await publishChange({ item_id: itemId, cust_ids: [`${P}-EU`] });
  await waitUntil(
    async () => receiver.received('/cat/de').some((r) => r.body.includes(itemId)),
    15_000,
    'the DE view',
  );
  await waitUntil(
    async () => receiver.received('/cat/eu').some((r) => r.body.includes(itemId)),
    15_000,
    'the EU view',
  );
  await new Promise((r) => setTimeout(r, 300));
  expect(receiver.received('/cat/top').some((r) => r.body.includes(itemId))).toBe(false);
  expect(receiver.received('/cat/hidden').some((r) => r.body.includes(itemId))).toBe(false);
  const got = receiver.received('/cat/de').find((r) => r.body.includes(itemId))!;
  expect(verifyWithStripe(got.body, got.headers['service-signature'], sub.signing_secret)).toMatchObject({
    cust_id: `${P}-EU-DE`,
    data: { unit_price: { amount: 700 } },
  });
});

it('every retry and replay of a delivery sends the event of its first attempt, though the item changed since', async () => {
  const P = h.P;
  const account = `${P}-OTHER`;
  const sub = (
    await h
      .api(account)
      .post('/v1/webhooks', { url: receiver.url('/cat/kept'), events: ['catalog.item.updated'] })
  ).body;
  const itemId = `item_${randomBytes(4).toString('hex')}`;
  let amount = 500;
  h.itemViews.current = (id, custId) => (id === itemId && custId === account ? priced(id, amount) : null);
  // The first attempt fails; the price changes before the retry.
  receiver.on('/cat/kept', (_req, count) => {
    if (count > 1) return { status: 200 };
    amount = 650;
    return { status: 503 };
  });
  await publishChange({ item_id: itemId });
  await waitUntil(async () => receiver.received('/cat/kept').length === 2, 15_000, 'the retry');
  const [first, retry] = receiver.received('/cat/kept');
  const sent = (r: typeof first) =>
    verifyWithStripe(r!.body, r!.headers['service-signature'], sub.signing_secret) as { data: unknown };
  expect(sent(first)).toMatchObject({ data: { id: itemId, unit_price: { amount: 500 } } });
  expect(retry!.headers['service-delivery']).toBe(first!.headers['service-delivery']);
  expect(retry!.body).toBe(first!.body);

  // A replay after success sends it once more, still the same event.
  const deliveryId = String(first!.headers['service-delivery']);
  const replay = await h.api(account).post(`/v1/webhooks/${sub.id}/deliveries/${deliveryId}/replay`, {});
  expect(replay.status).toBe(202);
  await waitUntil(async () => receiver.received('/cat/kept').length === 3, 15_000, 'the replay');
  expect(receiver.received('/cat/kept')[2]!.body).toBe(first!.body);
});
