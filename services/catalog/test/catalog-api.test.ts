// GET /v1/catalog/items and /v1/catalog/items/{id} through the real gateway with real tokens: each
// account sees its own prices (inherited down its tree), only the items it may see, its
// availability; category subtrees, ranked search, reach and every bad parameter.
import { type CatalogHarness, startCatalogHarness } from './support/catalog-harness';
import { type Fixture, loadFixture } from './support/catalog-fixture';

let h: CatalogHarness;
let f: Fixture;
beforeAll(async () => {
  h = await startCatalogHarness();
  f = await loadFixture(h);
}, 60_000);
afterAll(() => h?.stop());

interface Item {
  id: string;
  item_code: string;
  pricing: { min_qty: number; unit_price: { amount: number; currency: string } }[];
  available: boolean;
  category: { id: string; name: string };
}

async function list(custId: string, query = '', tokenCustId = custId): Promise<Item[]> {
  const res = await h.get(`/v1/catalog/items?cust_id=${custId}&limit=100${query}`, h.token(tokenCustId));
  expect(res.status).toBe(200);
  return res.body.data as Item[];
}
const codes = (items: Item[]) => items.map((i) => i.item_code);
const priceOf = (items: Item[], code: string) => items.find((i) => i.item_code === code)?.pricing;

/* eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies of many shapes */
type Res = { status: number; body: any; headers: Record<string, string> };

function expectError(res: Res, status: number, code: string, param?: string) {
  expect({ status: res.status, code: res.body?.error?.code, param: res.body?.error?.param }).toEqual({
    status,
    code,
    param,
  });
  expect(res.body.error.request_id).toBe(res.headers['x-request-id']);
}

describe('per-account prices', () => {
  it("each account sees its nearest price list's tiers, else the base tiers, in its currency", async () => {
    const tiers = (...t: [number, number][]) =>
      t.map(([min_qty, amount]) => ({ min_qty, unit_price: { amount, currency: 'USD' } }));
    expect(priceOf(await list(f.globex), 'STP-100')).toEqual(tiers([1, 1250], [10, 1100], [50, 990]));
    expect(priceOf(await list(f.acme), 'STP-100')).toEqual(tiers([1, 999], [10, 899]));
    // ACME-WEST inherits ACME's contract for the stapler and has its own price for the pen.
    const west = await list(f.west);
    expect(priceOf(west, 'STP-100')).toEqual(tiers([1, 999], [10, 899]));
    expect(priceOf(west, 'PEN-001')).toEqual(tiers([1, 99]));
    expect(priceOf(await list(f.acme), 'PEN-001')).toEqual(tiers([1, 120], [100, 95]));
  });

  it('an account in another currency sees only what a price list prices in its currency', async () => {
    const euro = await list(f.euro);
    expect(codes(euro)).toEqual(['STP-100']);
    expect(euro[0]!.pricing).toEqual([{ min_qty: 1, unit_price: { amount: 1150, currency: 'EUR' } }]);
  });

  it('retrieving one item answers the same view as the list, for the token account by default', async () => {
    const res = await h.get(`/v1/catalog/items/${f.ids['STP-100']}?cust_id=${f.west}`, h.token(f.acme));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: f.ids['STP-100'],
      object: 'catalog_item',
      item_code: 'STP-100',
      name: 'Stapler',
      category: { id: 'writing', name: 'Writing and stapling' },
      flags: ['bestseller'],
      images: [],
      available: true,
      lead_time_days: 2,
    });
    expect(res.body.pricing[0].unit_price.amount).toBe(999);
    const own = await h.get(`/v1/catalog/items/${f.ids['STP-100']}`, h.token(f.globex));
    expect(own.body.pricing[0].unit_price.amount).toBe(1250);
  });
});

describe('visibility', () => {
  it('an item restricted to ACME is seen by ACME and its descendants only; 404 for everyone else', async () => {
    expect(codes(await list(f.acme))).toContain('SEC-1');
    expect(codes(await list(f.west))).toContain('SEC-1');
    expect(codes(await list(f.globex))).not.toContain('SEC-1');
    const res = await h.get(`/v1/catalog/items/${f.ids['SEC-1']}?cust_id=${f.globex}`, h.token(f.globex));
    expectError(res, 404, 'resource_missing', 'id');
    expect(res.body.error.type).toBe('invalid_request');
  });
});

describe('availability', () => {
  it('available=true leaves out discontinued, out-of-stock and items unavailable to the account', async () => {
    expect(codes(await list(f.acme, '&available=true'))).toEqual([
      'LAP-13',
      'PAP-A4',
      'PEN-001',
      'SEC-1',
      'STP-100',
      'STP-200',
      'STR-300',
    ]);
    expect(codes(await list(f.acme, '&available=false'))).toEqual(['CHR-10', 'DSK-20']);
    expect(codes(await list(f.globex, '&available=false'))).toEqual(['CHR-10', 'DSK-20', 'PAP-A4']);
    const chair = (await list(f.acme)).find((i) => i.item_code === 'CHR-10');
    expect(chair?.available).toBe(false);
  });
});

describe('categories', () => {
  it('category_id answers the category and all its sub-categories', async () => {
    expect(codes(await list(f.acme, '&category_id=office'))).toEqual([
      'PAP-A4',
      'PEN-001',
      'SEC-1',
      'STP-100',
      'STP-200',
      'STR-300',
    ]);
    expect(codes(await list(f.acme, '&category_id=paper'))).toEqual(['PAP-A4']);
    expect(codes(await list(f.acme, '&category_id=furniture&available=true'))).toEqual([]);
  });
});

describe('search', () => {
  it('ranks name matches, then description matches, then near spellings; by item code within each', async () => {
    // "Staple remover" is no stem of "stapler" but a near spelling of a word of its name.
    expect(codes(await list(f.acme, '&q=stapler'))).toEqual(['STP-100', 'STP-200', 'PEN-001', 'STR-300']);
  });

  it('puts an exact item code first', async () => {
    expect(codes(await list(f.acme, '&q=STP-200'))[0]).toBe('STP-200');
    expect(codes(await list(f.acme, '&q=pen-001'))[0]).toBe('PEN-001');
  });

  it('finds word stems and small typos', async () => {
    expect(
      codes(await list(f.acme, '&q=staplers'))
        .slice(0, 2)
        .sort(),
    ).toEqual(['STP-100', 'STP-200']);
    expect(codes(await list(f.acme, '&q=stapeler'))).toContain('STP-100');
    expect(codes(await list(f.acme, '&q=shreder'))).toEqual(['SEC-1']);
  });

  it('an excluded word (-word, -"a phrase") leaves its items out of every tier, near spellings included', async () => {
    // "Long reach stapler" holds the excluded word: neither a match nor a near spelling brings it back.
    expect(codes(await list(f.acme, '&q=stapler%20-long'))).toEqual(['STP-100', 'PEN-001', 'STR-300']);
    const typo = codes(await list(f.acme, '&q=stapeler%20-%22long%20reach%22'));
    expect(typo).toContain('STP-100');
    expect(typo).not.toContain('STP-200');
  });

  it('never shows an item the account may not see, and combines with the other filters', async () => {
    expect(codes(await list(f.globex, '&q=shredder'))).toEqual([]);
    expect(codes(await list(f.acme, '&q=desk&available=true'))).toEqual(['PEN-001', 'STP-100']);
    expect(codes(await list(f.acme, '&q=paper&category_id=paper'))).toEqual(['PAP-A4']);
  });

  it('pages through ranked results with the cursor', async () => {
    const all = codes(await list(f.acme, '&q=stapler'));
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res: Res = await h.get(
        `/v1/catalog/items?cust_id=${f.acme}&q=stapler&limit=1${cursor ? `&starting_after=${cursor}` : ''}`,
        h.token(f.acme),
      );
      seen.push(...res.body.data.map((i: Item) => i.item_code));
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(all);
  });
});

describe('pagination', () => {
  it('keeps its place while items are inserted between pages: no item twice, none of the old ones missed', async () => {
    const before = codes(await list(f.globex));
    const seen: string[] = [];
    let cursor: string | null = null;
    let n = 0;
    do {
      const res: Res = await h.get(
        `/v1/catalog/items?cust_id=${f.globex}&limit=2${cursor ? `&starting_after=${cursor}` : ''}`,
        h.token(f.globex),
      );
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        object: 'list',
        url: '/v1/catalog/items',
        has_more: res.body.next_cursor !== null,
      });
      seen.push(...res.body.data.map((i: Item) => i.item_code));
      cursor = res.body.next_cursor;
      // Items sorting before and after the cursor arrive while the client pages.
      await h.catalog.createItem({
        item_code: `AAA-${n}`,
        name: 'Early',
        category_id: 'tech',
        currency: 'USD',
        pricing: [{ min_qty: 1, amount: 1 }],
      });
      await h.catalog.createItem({
        item_code: `ZZZ-${n++}`,
        name: 'Late',
        category_id: 'tech',
        currency: 'USD',
        pricing: [{ min_qty: 1, amount: 1 }],
      });
    } while (cursor);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.filter((c) => before.includes(c))).toEqual(before);
    expect(seen.some((c) => c.startsWith('ZZZ-'))).toBe(true);
  });
});

describe('reach and scopes', () => {
  it("404 for an account outside the token's reach or unknown; an ancestor's token reads a descendant", async () => {
    expectError(
      await h.get(`/v1/catalog/items?cust_id=${f.acme}`, h.token(f.west)),
      404,
      'resource_missing',
      'cust_id',
    );
    expectError(
      await h.get(`/v1/catalog/items?cust_id=${f.acme}`, h.token(f.globex)),
      404,
      'resource_missing',
      'cust_id',
    );
    expectError(
      await h.get(`/v1/catalog/items?cust_id=NOPE-${h.suffix}`, h.token(f.acme)),
      404,
      'resource_missing',
      'cust_id',
    );
    expectError(
      await h.get(`/v1/catalog/items/${f.ids['STP-100']}?cust_id=${f.acme}`, h.token(f.globex)),
      404,
      'resource_missing',
      'cust_id',
    );
    expect((await h.get(`/v1/catalog/items?cust_id=${f.west}`, h.token(f.acme))).status).toBe(200);
    expectError(
      await h.get(`/v1/catalog/items/itm_NOPE?cust_id=${f.acme}`, h.token(f.acme)),
      404,
      'resource_missing',
      'id',
    );
  });

  it('403 insufficient_scope without catalog:read, 401 without a token', async () => {
    const res = await h.get(`/v1/catalog/items?cust_id=${f.acme}`, h.token(f.acme, 'orders:read'));
    expectError(res, 403, 'insufficient_scope');
    expect((await h.get(`/v1/catalog/items?cust_id=${f.acme}`, 'not-a-token')).status).toBe(401);
  });
});

describe('bad parameters', () => {
  const cases: [string, number, string, string][] = [
    ['', 422, 'missing_required_field', 'cust_id'],
    ['cust_id=ACME&category_id=nope', 422, 'invalid_value', 'category_id'],
    ['cust_id=ACME&available=maybe', 422, 'invalid_value', 'available'],
    ['cust_id=ACME&starting_after=%%%', 422, 'invalid_value', 'starting_after'],
    ['cust_id=ACME&starting_after=eyJ4IjoxfQ', 422, 'invalid_value', 'starting_after'],
    ['cust_id=ACME&limit=0', 422, 'invalid_value', 'limit'],
    ['cust_id=ACME&limit=101', 422, 'invalid_value', 'limit'],
    ['cust_id=ACME&q=', 422, 'invalid_value', 'q'],
    [`cust_id=ACME&q=${'x'.repeat(201)}`, 422, 'invalid_value', 'q'],
  ];
  it.each(cases)('?%s -> %i %s naming %s', async (query, status, code, param) => {
    const res = await h.get(`/v1/catalog/items?${query.replace('ACME', f.acme)}`, h.token(f.acme));
    expectError(res, status, code, param);
  });

  it('a browse cursor is refused by a search and the other way round', async () => {
    const page: Res = await h.get(`/v1/catalog/items?cust_id=${f.acme}&limit=1`, h.token(f.acme));
    const res = await h.get(
      `/v1/catalog/items?cust_id=${f.acme}&q=stapler&starting_after=${page.body.next_cursor}`,
      h.token(f.acme),
    );
    expectError(res, 422, 'invalid_value', 'starting_after');
  });
});
