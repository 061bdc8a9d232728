// POST /internal/v1/catalog/prices (the orders service's call) and POST
// /internal/v1/catalog/items/views (the webhooks service's): one round trip prices every line for
// the account, with the reason a line cannot be ordered.
import { CATALOG_ITEM_VIEWS_PATH, CATALOG_PRICES_PATH, PriceLinesResponse } from '@ordering/contracts';
import { type CatalogHarness, startCatalogHarness } from './support/catalog-harness';
import { type Fixture, loadFixture } from './support/catalog-fixture';

let h: CatalogHarness;
let f: Fixture;
beforeAll(async () => {
  h = await startCatalogHarness();
  f = await loadFixture(h);
}, 60_000);
afterAll(() => h?.stop());

const price = (body: unknown) =>
  h
    .internal()
    .post(CATALOG_PRICES_PATH)
    .set('X-Ordering-Identity', h.internalIdentity())
    .send(body as object);

describe('internal pricing', () => {
  it("prices each line at the account's best tier, in request order, with the reason a line cannot be ordered", async () => {
    const res = await price({
      cust_id: f.west,
      lines: [
        { item_code: 'STP-100', quantity: 12 },
        { item_code: 'PEN-001', quantity: 3 },
        { item_code: 'NOPE-1', quantity: 1 },
        { item_code: 'CHR-10', quantity: 1 },
        { item_code: 'DSK-20', quantity: 2 },
        { item_code: 'SEC-1', quantity: 1 },
      ],
    });
    expect(res.status).toBe(200);
    const quote = PriceLinesResponse.parse(res.body);
    expect(quote).toMatchObject({ object: 'price_quote', cust_id: f.west, currency: 'USD' });
    expect(quote.lines).toEqual([
      {
        item_code: 'STP-100',
        quantity: 12,
        item_id: f.ids['STP-100'],
        description: 'Stapler',
        unit_price: { amount: 899, currency: 'USD' },
        line_total: { amount: 899 * 12, currency: 'USD' },
        lead_time_days: 2,
      },
      expect.objectContaining({
        item_code: 'PEN-001',
        unit_price: { amount: 99, currency: 'USD' },
        line_total: { amount: 297, currency: 'USD' },
      }),
      { item_code: 'NOPE-1', quantity: 1, error: { code: 'invalid_item', message: expect.any(String) } },
      { item_code: 'CHR-10', quantity: 1, error: { code: 'item_unavailable', message: expect.any(String) } },
      { item_code: 'DSK-20', quantity: 2, error: { code: 'item_unavailable', message: expect.any(String) } },
      expect.objectContaining({ item_code: 'SEC-1', unit_price: { amount: 25900, currency: 'USD' } }),
    ]);
  });

  it('a line whose total is beyond the largest exact amount (2^53 - 1) is amount_too_large, not a priced line', async () => {
    const res = await price({
      cust_id: f.west,
      lines: [
        { item_code: 'STP-100', quantity: 100_000_000_000_000 },
        { item_code: 'STP-100', quantity: 1 },
      ],
    });
    expect(res.status).toBe(200);
    const quote = PriceLinesResponse.parse(res.body);
    expect(quote.lines[0]).toEqual({
      item_code: 'STP-100',
      quantity: 100_000_000_000_000,
      error: { code: 'amount_too_large', message: expect.stringContaining('lower the quantity') },
    });
    expect(quote.lines[1]).toMatchObject({ line_total: { amount: 999, currency: 'USD' } });
  });

  it('the best tier is the lowest unit price among those whose min_qty <= quantity: buying more never costs more a unit', async () => {
    // Tiers need not fall as min_qty rises (an operator may enter 10:1200 by mistake or on purpose).
    await h.catalog.createItem({
      currency: 'USD',
      item_code: 'TIER-ODD',
      name: 'Odd tiers',
      description: 'Tiers that do not fall with quantity',
      category_id: 'office',
      pricing: [
        { min_qty: 1, amount: 1000 },
        { min_qty: 10, amount: 1200 },
        { min_qty: 20, amount: 900 },
      ],
    });
    const res = await price({
      cust_id: f.globex,
      lines: [5, 10, 19, 20].map((quantity) => ({ item_code: 'TIER-ODD', quantity })),
    });
    expect(res.status).toBe(200);
    expect(res.body.lines.map((l: { unit_price: { amount: number } }) => l.unit_price.amount)).toEqual([
      1000, 1000, 1000, 900,
    ]);
    expect(res.body.lines[1].line_total).toEqual({ amount: 10_000, currency: 'USD' });
  });

  it('an item the account may not see is invalid_item; the base tiers apply without a price list', async () => {
    const res = await price({
      cust_id: f.globex,
      lines: [
        { item_code: 'SEC-1', quantity: 1 },
        { item_code: 'STP-100', quantity: 50 },
        { item_code: 'PAP-A4', quantity: 1 },
      ],
    });
    expect(res.body.lines[0].error.code).toBe('invalid_item');
    expect(res.body.lines[1].unit_price).toEqual({ amount: 990, currency: 'USD' });
    expect(res.body.lines[2].error.code).toBe('item_unavailable');
  });

  it('404 for an unknown account, 422 for a bad body, 401 without the internal identity', async () => {
    const unknown = await price({
      cust_id: `NOPE-${h.suffix}`,
      lines: [{ item_code: 'STP-100', quantity: 1 }],
    });
    expect([unknown.status, unknown.body.error.code]).toEqual([404, 'resource_missing']);
    const bad = await price({ cust_id: f.acme, lines: [{ item_code: 'STP-100', quantity: 0 }] });
    expect([bad.status, bad.body.error.code, bad.body.error.param]).toEqual([
      422,
      'invalid_value',
      'lines[0].quantity',
    ]);
    const unknownField = await price({ cust_id: f.acme, lines: [], extra: 1 });
    expect([unknownField.status, unknownField.body.error.code]).toEqual([422, 'unknown_field']);
    const anonymous = await h.internal().post(CATALOG_PRICES_PATH).send({ cust_id: f.acme, lines: [] });
    expect(anonymous.status).toBe(401);
  });
});

describe('item views for the webhooks service', () => {
  it('answers the item as each account sees it, or not visible', async () => {
    const res = await h
      .internal()
      .post(CATALOG_ITEM_VIEWS_PATH)
      .set('X-Ordering-Identity', h.internalIdentity())
      .send({ item_code: 'SEC-1', cust_ids: [f.west, f.globex, `NOPE-${h.suffix}`] });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      object: 'catalog_item_views',
      item_id: f.ids['SEC-1'],
      item_code: 'SEC-1',
    });
    expect(res.body.views.map((v: { cust_id: string; visible: boolean }) => [v.cust_id, v.visible])).toEqual([
      [f.west, true],
      [f.globex, false],
      [`NOPE-${h.suffix}`, false],
    ]);
    expect(res.body.views[0].item).toMatchObject({ object: 'catalog_item', item_code: 'SEC-1' });
    expect(res.body.views[1].item).toBeNull();
    const missing = await h
      .internal()
      .post(CATALOG_ITEM_VIEWS_PATH)
      .set('X-Ordering-Identity', h.internalIdentity())
      .send({ item_id: 'itm_NOPE', cust_ids: [f.acme] });
    expect([missing.status, missing.body.error.code]).toEqual([404, 'resource_missing']);
  });
});
