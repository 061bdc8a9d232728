// Placing, reading, listing and cancelling orders over HTTP as the gateway forwards them, with the
// real customers service, a catalog stand-in that follows the pricing contract and real Kafka.
import { encodeCursor } from '@ordering/http';
import { type OrdersHarness, seedAccounts, startOrdersHarness } from './support/orders-harness';

let h: OrdersHarness;
let s: Awaited<ReturnType<typeof seedAccounts>>;
const WRITE = ['orders:read', 'orders:write'];

beforeAll(async () => {
  h = await startOrdersHarness();
  s = await seedAccounts(h);
  h.chains.set(s.root, [s.users.approver]);
});
afterAll(() => h?.stop());

const place = (
  body: Record<string, unknown>,
  login = s.users.shopper,
  custId = s.root,
  headers: Record<string, string> = {},
) =>
  h
    .http()
    .post('/v1/orders')
    .set('X-Ordering-Identity', h.identity(custId, login, WRITE))
    .set(headers)
    .send(body);

const get = (path: string, login: string, custId = s.root, scopes = WRITE) =>
  h
    .http()
    .get(path)
    .set('X-Ordering-Identity', h.identity(custId, login, scopes));

const outboxOf = (orderId: string) =>
  h.orders.knex('outbox').where({ key: orderId }).orderBy('id').select('event_type', 'payload');

describe('placing an order', () => {
  it('under the threshold: 201, approved at once, priced by tier, taxed (US-CA 7.25%) and shipped by band', async () => {
    const res = await place({
      cust_id: s.root,
      shipping_address_id: s.addresses.root,
      po_number: 'PO-1',
      items: [
        { item_code: 'PAPER-A4', quantity: 12 }, // tier 10+: 849 -> 10188
        { item_code: 'PEN-BLUE', quantity: 3 }, // 129 -> 387
      ],
    });
    expect(res.status).toBe(201);
    const order = res.body;
    expect(order).toMatchObject({
      object: 'order',
      cust_id: s.root,
      status: 'approved',
      ordered_by: { login: s.users.shopper, name: 'Sam Shopper' },
      po_number: 'PO-1',
      cost_center: null,
      shipping_address: { attention: 'Sam Shopper', region: 'CA', country: 'US', street_1: '1 Main St' },
      subtotal: { amount: 10_575, currency: 'USD' },
      // 10575 * 7.25% = 766.6875 -> 767
      tax: { amount: 767, currency: 'USD' },
      // subtotal 100.00..499.99 band: 10.00
      shipping: { amount: 1_000, currency: 'USD' },
      total: { amount: 12_342, currency: 'USD' },
    });
    expect(order.id).toMatch(/^ord_/);
    expect(order.approved_at).toBe(order.submitted_at);
    expect(order.items).toEqual([
      expect.objectContaining({
        item_code: 'PAPER-A4',
        quantity: 12,
        description: 'Copy paper A4, 500 sheets',
        unit_price: { amount: 849, currency: 'USD' },
        line_total: { amount: 10_188, currency: 'USD' },
      }),
      expect.objectContaining({
        item_code: 'PEN-BLUE',
        quantity: 3,
        unit_price: { amount: 129, currency: 'USD' },
        line_total: { amount: 387, currency: 'USD' },
      }),
    ]);
    const events = await outboxOf(order.id);
    expect(events.map((e) => e.event_type)).toEqual(['order.submitted', 'order.approved']);
    expect((events[0]!.payload as { data: unknown }).data).toMatchObject({
      id: order.id,
      total: order.total,
    });
  });

  it.each([1, 10, 12])(
    'an order of %i lines is stored with its lines in order and its events (each statement shape)',
    async (lines) => {
      const items = Array.from({ length: lines }, (_, i) => ({
        item_code: i % 2 ? 'PEN-BLUE' : 'PAPER-A4',
        quantity: i + 1,
      }));
      const res = await place({ cust_id: s.root, shipping_address_id: s.addresses.root, items });
      expect(res.status).toBe(201);
      const read = await get(`/v1/orders/${res.body.id}`, s.users.shopper);
      expect(read.status).toBe(200);
      expect(read.body).toEqual(res.body);
      expect(
        read.body.items.map((l: { item_code: string; quantity: number }) => [l.item_code, l.quantity]),
      ).toEqual(items.map((l) => [l.item_code, l.quantity]));
      const events = await outboxOf(res.body.id);
      expect(events.map((e) => e.event_type)).toEqual(['order.submitted', 'order.approved']);
      expect((events[0]!.payload as { data: { items: unknown[] } }).data.items).toHaveLength(lines);
    },
  );

  it('over the threshold with a chain: pending_approval, no approved_at, only order.submitted', async () => {
    const res = await place({
      cust_id: s.root,
      shipping_address_id: s.addresses.root,
      items: [{ item_code: 'CHAIR-ERGO', quantity: 2 }],
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      status: 'pending_approval',
      approved_at: null,
      total: { amount: 69_800 + 5_061 + 500 },
    });
    expect((await outboxOf(res.body.id)).map((e) => e.event_type)).toEqual(['order.submitted']);
  });

  it('over the threshold of an account no chain applies to: approved at once', async () => {
    h.chains.delete(s.child);
    const res = await place({
      cust_id: s.child,
      shipping_address_id: s.addresses.child,
      items: [{ item_code: 'CHAIR-ERGO', quantity: 5 }],
    });
    expect(res.status).toBe(201);
    // EUR account, DE 19%: 5 * 329.00 = 1645.00; tax 312.55; free shipping from 1000.00
    expect(res.body).toMatchObject({
      status: 'approved',
      subtotal: { amount: 164_500, currency: 'EUR' },
      tax: { amount: 31_255 },
      shipping: { amount: 0 },
      total: { amount: 195_755 },
    });
  });

  it('refuses a bad body with the param down to the line', async () => {
    const items = [1, 2, 3, 'x'].map((q) => ({ item_code: 'PEN-BLUE', quantity: q }));
    const res = await place({ cust_id: s.root, shipping_address_id: s.addresses.root, items });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({
      type: 'invalid_request',
      code: 'invalid_value',
      param: 'items[3].quantity',
    });
    const missing = await place({ cust_id: s.root, items: [{ item_code: 'PEN-BLUE', quantity: 1 }] });
    expect(missing.body.error).toMatchObject({
      code: 'missing_required_field',
      param: 'shipping_address_id',
    });
    const empty = await place({ cust_id: s.root, shipping_address_id: s.addresses.root, items: [] });
    expect(empty.body.error).toMatchObject({ code: 'invalid_value', param: 'items' });
    const unknown = await place({
      cust_id: s.root,
      shipping_address_id: s.addresses.root,
      items: [{ item_code: 'PEN-BLUE', quantity: 1, colour: 'red' }],
    });
    expect(unknown.body.error).toMatchObject({ code: 'unknown_field', param: 'items[0].colour' });
  });

  it('refuses JSON of the wrong type with 422 and a body in another media type with 415, writing nothing', async () => {
    const before = await h.orders.knex('orders').count<{ count: string }[]>('* as count');
    const send = (path: string, type: string, body: string) =>
      h
        .http()
        .post(path)
        .set('X-Ordering-Identity', h.identity(s.root, s.users.shopper, WRITE))
        .set('Content-Type', type)
        .send(body);
    const order = JSON.stringify({
      cust_id: s.root,
      shipping_address_id: s.addresses.root,
      items: [{ item_code: 'PEN-BLUE', quantity: 1 }],
    });
    const someOrder = 'ord_01JD0Z8Q3N4M5P6R7S8T9V0W1X';
    for (const [path, type, body, status, code] of [
      ['/v1/orders', 'application/json', 'null', 422, 'invalid_value'],
      ['/v1/orders', 'application/json', '1', 422, 'invalid_value'],
      ['/v1/orders', 'application/json', '"x"', 422, 'invalid_value'],
      ['/v1/orders', 'application/json', 'true', 422, 'invalid_value'],
      ['/v1/orders', 'application/json', '[]', 422, 'invalid_value'],
      [`/v1/orders/${someOrder}/cancel`, 'application/json', 'null', 422, 'invalid_value'],
      ['/v1/orders', 'text/plain', order, 415, 'unsupported_media_type'],
      ['/v1/orders', 'application/x-www-form-urlencoded', order, 415, 'unsupported_media_type'],
      [`/v1/orders/${someOrder}/cancel`, 'text/plain', '{"reason":"x"}', 415, 'unsupported_media_type'],
    ] as const) {
      const res = await send(path, type, body);
      expect({ path, type, body, status: res.status, error: res.body.error }).toEqual({
        path,
        type,
        body,
        status,
        error: expect.objectContaining({ type: 'invalid_request', code }),
      });
    }
    expect(await h.orders.knex('orders').count<{ count: string }[]>('* as count')).toEqual(before);
  });

  it('refuses unknown and unavailable items and foreign addresses (422 naming them), writing nothing', async () => {
    const before = await h.orders.knex('orders').count<{ count: string }[]>('* as count');
    const unknownItem = await place({
      cust_id: s.root,
      shipping_address_id: s.addresses.root,
      items: [
        { item_code: 'PEN-BLUE', quantity: 1 },
        { item_code: 'NOPE', quantity: 1 },
      ],
    });
    expect(unknownItem.status).toBe(422);
    expect(unknownItem.body.error).toMatchObject({
      type: 'invalid_request',
      code: 'invalid_item',
      param: 'items[1].item_code',
    });
    const unavailable = await place({
      cust_id: s.root,
      shipping_address_id: s.addresses.root,
      items: [{ item_code: 'DESK-OLD', quantity: 1 }],
    });
    expect(unavailable.body.error).toMatchObject({ code: 'item_unavailable', param: 'items[0].item_code' });
    // A line whose total no amount can hold exactly: the caller's quantity, not a 503.
    const tooLarge = await place({
      cust_id: s.root,
      shipping_address_id: s.addresses.root,
      items: [
        { item_code: 'PEN-BLUE', quantity: 1 },
        { item_code: 'YACHT-XL', quantity: 10_000 },
      ],
    });
    expect(tooLarge.status).toBe(422);
    expect(tooLarge.body.error).toMatchObject({
      type: 'invalid_request',
      code: 'amount_too_large',
      param: 'items[1].quantity',
    });
    for (const address of [s.addresses.other, s.addresses.rootBilling, 'addr_nope']) {
      const res = await place({
        cust_id: s.root,
        shipping_address_id: address,
        items: [{ item_code: 'PEN-BLUE', quantity: 1 }],
      });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'invalid_address', param: 'shipping_address_id' });
    }
    const after = await h.orders.knex('orders').count<{ count: string }[]>('* as count');
    expect(after[0]!.count).toBe(before[0]!.count);
  });

  it('ships to an address added a moment ago, though the account was read (and cached) just before', async () => {
    const first = await place({
      cust_id: s.root,
      shipping_address_id: s.addresses.root,
      items: [{ item_code: 'PEN-BLUE', quantity: 1 }],
    });
    expect(first.status).toBe(201);
    const added = (await h.admin.addAddress(s.root, {
      type: 'shipping',
      label: 'Annex',
      street_1: '9 Annex Rd',
      street_2: 'Suite 400',
      city: 'Reno',
      region: 'NV',
      postal_code: '89501',
      country: 'US',
    })) as { id: string };
    const res = await place({
      cust_id: s.root,
      shipping_address_id: added.id,
      items: [{ item_code: 'PEN-BLUE', quantity: 1 }],
    });
    expect(res.status).toBe(201);
    // The whole address is copied: a carrier needs the suite as much as the street.
    expect(res.body.shipping_address).toMatchObject({
      street_1: '9 Annex Rd',
      street_2: 'Suite 400',
      region: 'NV',
    });
  });

  it("addresses the shipment to the address's own attention line when it has one, else to the orderer", async () => {
    const added = (await h.admin.addAddress(s.root, {
      type: 'shipping',
      label: 'Dock',
      attention: 'Receiving dock 3',
      street_1: '1 Dock Rd',
      city: 'Reno',
      region: 'NV',
      postal_code: '89501',
      country: 'US',
    })) as { id: string };
    const res = await place({
      cust_id: s.root,
      shipping_address_id: added.id,
      items: [{ item_code: 'PEN-BLUE', quantity: 1 }],
    });
    expect(res.status).toBe(201);
    expect(res.body.shipping_address).toMatchObject({ attention: 'Receiving dock 3', street_1: '1 Dock Rd' });
    const plain = await place({
      cust_id: s.root,
      shipping_address_id: s.addresses.root,
      items: [{ item_code: 'PEN-BLUE', quantity: 1 }],
    });
    expect(plain.body.shipping_address.attention).toBe('Sam Shopper');
  });

  it('answers 404 for an account outside the token reach (and an unknown one)', async () => {
    // An id no account can have (20,000 characters: longer than a request line the customers
    // service accepts) is unknown too, not a 503 the client would retry for ever.
    for (const custId of [s.other, 'NOPE-X', 'A'.repeat(20_000)]) {
      const res = await place({
        cust_id: custId,
        shipping_address_id: s.addresses.other,
        items: [{ item_code: 'PEN-BLUE', quantity: 1 }],
      });
      expect(res.status).toBe(404);
      expect(res.body.error).toMatchObject({
        type: 'invalid_request',
        code: 'resource_missing',
        param: 'cust_id',
      });
    }
  });

  it('answers 503 service_unavailable and writes nothing while the catalog fails', async () => {
    const before = await h.orders.knex('orders').count<{ count: string }[]>('* as count');
    h.catalog.failing = true;
    try {
      const res = await place(
        {
          cust_id: s.root,
          shipping_address_id: s.addresses.root,
          items: [{ item_code: 'PEN-BLUE', quantity: 1 }],
        },
        s.users.shopper,
        s.root,
        { 'Idempotency-Key': 'during-outage' },
      );
      expect(res.status).toBe(503);
      expect(res.body.error).toMatchObject({ type: 'api_error', code: 'service_unavailable' });
    } finally {
      h.catalog.failing = false;
    }
    const after = await h.orders.knex('orders').count<{ count: string }[]>('* as count');
    expect(after[0]!.count).toBe(before[0]!.count);
    // The key was released: the retry runs and creates the order.
    const retry = await place(
      {
        cust_id: s.root,
        shipping_address_id: s.addresses.root,
        items: [{ item_code: 'PEN-BLUE', quantity: 1 }],
      },
      s.users.shopper,
      s.root,
      { 'Idempotency-Key': 'during-outage' },
    );
    expect(retry.status).toBe(201);
  });

  it('the same Idempotency-Key from 20 parallel callers gives one order', async () => {
    const key = `key-${h.suffix}-parallel`;
    const body = {
      cust_id: s.root,
      shipping_address_id: s.addresses.root,
      items: [{ item_code: 'PAPER-A4', quantity: 1 }],
      po_number: key,
    };
    const answers = await Promise.all(
      Array.from({ length: 20 }, () => place(body, s.users.shopper, s.root, { 'Idempotency-Key': key })),
    );
    const created = answers.filter((r) => r.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const r of answers) expect([201, 409]).toContain(r.status);
    for (const r of answers.filter((a) => a.status === 409))
      expect(r.body.error.code).toBe('idempotency_key_in_use');
    expect(new Set(created.map((r) => r.body.id)).size).toBe(1);
    const rows = await h.orders.knex('orders').where({ po_number: key });
    expect(rows).toHaveLength(1);
    const replay = await place(body, s.users.shopper, s.root, { 'Idempotency-Key': key });
    expect(replay.status).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body.id).toBe(rows[0].id);
    // The original bytes, not an equal document with its keys in another order.
    expect(replay.text).toBe(created[0]!.text);
    const reused = await place({ ...body, po_number: 'other' }, s.users.shopper, s.root, {
      'Idempotency-Key': key,
    });
    expect(reused.status).toBe(422);
    expect(reused.body.error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_reused' });
  });

  it("one client's two users with the same Idempotency-Key and body each get their own order, not the other's", async () => {
    const key = `key-${h.suffix}-two-users`;
    const body = {
      cust_id: s.root,
      shipping_address_id: s.addresses.root,
      items: [{ item_code: 'PAPER-A4', quantity: 1 }],
      po_number: key,
    };
    const sams = await place(body, s.users.shopper, s.root, { 'Idempotency-Key': key });
    const sues = await place(body, s.users.shopper2, s.root, { 'Idempotency-Key': key });
    expect(sams.status).toBe(201);
    expect(sues.status).toBe(201);
    expect(sues.headers['idempotent-replayed']).toBeUndefined();
    expect(sues.body.ordered_by.login).toBe(s.users.shopper2);
    expect(sues.body.id).not.toBe(sams.body.id);
    expect(await h.orders.knex('orders').where({ po_number: key })).toHaveLength(2);
    // Each one's retry replays their own order.
    const suesRetry = await place(body, s.users.shopper2, s.root, { 'Idempotency-Key': key });
    expect(suesRetry.headers['idempotent-replayed']).toBe('true');
    expect(suesRetry.body.id).toBe(sues.body.id);
  });
});

describe('reading, listing and cancelling', () => {
  let samOrder: string;
  let sueOrder: string;
  let queued: string;

  beforeAll(async () => {
    const body = {
      cust_id: s.root,
      shipping_address_id: s.addresses.root,
      items: [{ item_code: 'PEN-BLUE', quantity: 2 }],
    };
    samOrder = (await place(body, s.users.shopper)).body.id;
    sueOrder = (await place(body, s.users.shopper2)).body.id;
    queued = (await place({ ...body, items: [{ item_code: 'CHAIR-ERGO', quantity: 3 }] }, s.users.shopper2))
      .body.id;
    await h.orders.knex('order_approvers').insert({ order_id: queued, approver: s.users.approver });
  });

  it("a shopper reads their own orders; another shopper's is 404; admins read the tree", async () => {
    expect((await get(`/v1/orders/${samOrder}`, s.users.shopper)).status).toBe(200);
    const foreign = await get(`/v1/orders/${sueOrder}`, s.users.shopper);
    expect(foreign.status).toBe(404);
    // Like the catalog's and the webhooks' 404s, it names the path parameter.
    expect(foreign.body.error).toMatchObject({ code: 'resource_missing', param: 'id' });
    expect((await get(`/v1/orders/${sueOrder}`, s.users.admin)).status).toBe(200);
    expect((await get(`/v1/orders/${sueOrder}`, 'integration', s.root, ['orders:read'])).status).toBe(200);
    expect((await get(`/v1/orders/${sueOrder}`, s.users.outsider, s.other)).status).toBe(404);
    expect((await get(`/v1/orders/ord_unknown`, s.users.admin)).status).toBe(404);
  });

  it('an approver also reads the orders in their queue', async () => {
    expect((await get(`/v1/orders/${queued}`, s.users.approver)).status).toBe(200);
    expect((await get(`/v1/orders/${sueOrder}`, s.users.approver)).status).toBe(404);
    const list = await get('/v1/orders?limit=100', s.users.approver);
    expect(list.body.data.map((o: { id: string }) => o.id)).toContain(queued);
    expect(list.body.data.map((o: { id: string }) => o.id)).not.toContain(sueOrder);
  });

  it('lists newest first with filters and cursor pagination', async () => {
    const all = await get('/v1/orders?limit=100', s.users.admin);
    expect(all.status).toBe(200);
    expect(all.body).toMatchObject({ object: 'list', url: '/v1/orders', has_more: false, next_cursor: null });
    const times = all.body.data.map((o: { submitted_at: string }) => o.submitted_at);
    expect([...times].sort().reverse()).toEqual(times);
    const mine = await get('/v1/orders?limit=100', s.users.shopper);
    expect(
      mine.body.data.every((o: { ordered_by: { login: string } }) => o.ordered_by.login === s.users.shopper),
    ).toBe(true);
    const pending = await get('/v1/orders?status=pending_approval', s.users.admin);
    expect(pending.body.data.length).toBeGreaterThan(0);
    expect(pending.body.data.every((o: { status: string }) => o.status === 'pending_approval')).toBe(true);
    const child = await get(`/v1/orders?cust_id=${s.child}`, s.users.admin);
    expect(child.body.data.every((o: { cust_id: string }) => o.cust_id === s.child)).toBe(true);
    expect((await get(`/v1/orders?cust_id=${s.other}`, s.users.admin)).status).toBe(404);
    const newest = all.body.data[0];
    const after = await get(
      `/v1/orders?created_after=${encodeURIComponent(newest.submitted_at)}`,
      s.users.admin,
    );
    expect(after.body.data.map((o: { id: string }) => o.id)).toContain(newest.id);

    const pages: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { body: { data: { id: string }[]; next_cursor: string | null; has_more: boolean } } =
        await get(`/v1/orders?limit=2${cursor ? `&starting_after=${cursor}` : ''}`, s.users.admin);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      pages.push(...page.body.data.map((o) => o.id));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(pages).toEqual(all.body.data.map((o: { id: string }) => o.id));

    for (const bad of [
      'limit=0',
      'limit=101',
      'status=lost',
      'created_after=yesterday',
      'starting_after=zzz',
    ]) {
      const res = await get(`/v1/orders?${bad}`, s.users.admin);
      expect(res.status).toBe(422);
      expect(res.body.error.param).toBe(bad.split('=')[0]);
    }
  });

  it('refuses a forged cursor and an impossible created_after with 422 naming them, not a 500', async () => {
    const someOrder = 'ord_01JD0Z8Q3N4M5P6R7S8T9V0W1X';
    for (const query of [
      `starting_after=${encodeCursor({ t: 'x', id: 'y' })}`,
      `starting_after=${encodeCursor({ t: '', id: someOrder })}`,
      `starting_after=${encodeCursor({ t: '2026-99-99T00:00:00Z', id: someOrder })}`,
      `starting_after=${encodeCursor({ t: '99999-01-01T00:00:00Z', id: someOrder })}`,
      `starting_after=${encodeCursor({ t: 1700000000000, id: someOrder })}`,
      `starting_after=${encodeCursor({ t: '2026-11-20T10:00:00.000Z', id: 'y' })}`,
      'created_after=2026-02-30T00:00:00Z',
      'created_after=2026-11-31',
    ]) {
      const res = await get(`/v1/orders?${query}`, s.users.admin);
      expect({ query, status: res.status, error: res.body.error }).toEqual({
        query,
        status: 422,
        error: expect.objectContaining({
          type: 'invalid_request',
          code: 'invalid_value',
          param: query.split('=')[0],
        }),
      });
    }
  });

  it('cancels pending and approved orders once; then 409 order_not_cancellable', async () => {
    // The approver reads the order in their queue but does not cancel it (they reject it), here or
    // once it is approved: like another shopper, 404, and the order is left as it was.
    const byApprover = await h
      .http()
      .post(`/v1/orders/${queued}/cancel`)
      .set('X-Ordering-Identity', h.identity(s.root, s.users.approver, WRITE))
      .send({ reason: 'not mine to cancel' });
    expect(byApprover.status).toBe(404);
    expect(byApprover.body.error).toMatchObject({ code: 'resource_missing', param: 'id' });
    expect((await get(`/v1/orders/${queued}`, s.users.approver)).body.status).toBe('pending_approval');
    const res = await h
      .http()
      .post(`/v1/orders/${queued}/cancel`)
      .set('X-Ordering-Identity', h.identity(s.root, s.users.shopper2, WRITE))
      .send({ reason: 'Ordered by mistake' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'cancelled',
      cancellation: {
        cancelled_by: { login: s.users.shopper2, name: 'Sue Shopper' },
        reason: 'Ordered by mistake',
      },
    });
    expect(res.body.cancelled_at).toEqual(expect.any(String));
    const noBody = await h
      .http()
      .post(`/v1/orders/${samOrder}/cancel`)
      .set('X-Ordering-Identity', h.identity(s.root, s.users.shopper, WRITE));
    expect(noBody.status).toBe(200);
    expect(noBody.body.cancellation.reason).toBeNull();
    const again = await h
      .http()
      .post(`/v1/orders/${samOrder}/cancel`)
      .set('X-Ordering-Identity', h.identity(s.root, s.users.shopper, WRITE))
      .send({});
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ type: 'invalid_request', code: 'order_not_cancellable' });
    const foreign = await h
      .http()
      .post(`/v1/orders/${sueOrder}/cancel`)
      .set('X-Ordering-Identity', h.identity(s.other, s.users.outsider, WRITE))
      .send({});
    expect(foreign.status).toBe(404);
    expect((await outboxOf(queued)).map((e) => e.event_type)).toEqual(['order.submitted', 'order.cancelled']);
    const cancelled = (await outboxOf(queued))[1]!.payload as { data: { cancellation: { reason: string } } };
    expect(cancelled.data.cancellation.reason).toBe('Ordered by mistake');
  });
});
