// The operators' endpoints refuse what would leave the catalog inconsistent, in the API's error shape.
import { CatalogAdminError } from '../src/entry-points/cli/catalog-admin-client';
import { type CatalogHarness, startCatalogHarness } from './support/catalog-harness';
import { type Fixture, loadFixture } from './support/catalog-fixture';

let h: CatalogHarness;
let f: Fixture;
beforeAll(async () => {
  h = await startCatalogHarness();
  f = await loadFixture(h);
}, 60_000);
afterAll(() => h?.stop());

async function refusal(call: Promise<unknown>) {
  const err = await call.then(
    () => undefined,
    (e: unknown) => e as CatalogAdminError,
  );
  expect(err).toBeInstanceOf(CatalogAdminError);
  const { error } = err!.body as { error: { code: string; param?: string } };
  return [err!.status, error.code, error.param];
}

const item = { name: 'X', category_id: 'office', currency: 'USD', pricing: [{ min_qty: 1, amount: 1 }] };

it('refuses duplicates, unknown references, cycles and tiers without a unit price', async () => {
  expect(await refusal(h.catalog.createItem({ item_code: 'STP-100', ...item }))).toEqual([
    409,
    'resource_exists',
    'item_code',
  ]);
  expect(await refusal(h.catalog.createItem({ item_code: 'NEW-1', ...item, category_id: 'nope' }))).toEqual([
    422,
    'invalid_value',
    'category_id',
  ]);
  expect(
    await refusal(
      h.catalog.createItem({ item_code: 'NEW-2', ...item, pricing: [{ min_qty: 5, amount: 1 }] }),
    ),
  ).toEqual([422, 'invalid_value', 'pricing']);
  expect(await refusal(h.catalog.createItem({ item_code: 'NEW-3', ...item, colour: 'red' }))).toEqual([
    422,
    'unknown_field',
    'colour',
  ]);
  expect(await refusal(h.catalog.createCategory({ id: 'office', name: 'Again' }))).toEqual([
    409,
    'resource_exists',
    'id',
  ]);
  expect(await refusal(h.catalog.updateCategory('office', { parent_id: 'writing' }))).toEqual([
    422,
    'invalid_value',
    'parent_id',
  ]);
  expect(await refusal(h.catalog.updateItem('NOPE-9', { name: 'x' }))).toEqual([
    404,
    'resource_missing',
    'item',
  ]);
});

it('assigns a price list only to an existing account of its currency', async () => {
  expect(await refusal(h.catalog.assign(f.euro, 'ACME-CONTRACT'))).toEqual([
    422,
    'invalid_value',
    'price_list_id',
  ]);
  expect(await refusal(h.catalog.assign(`NOPE-${h.suffix}`, 'ACME-CONTRACT'))).toEqual([
    404,
    'resource_missing',
    'cust_id',
  ]);
  expect(await refusal(h.catalog.assign(f.globex, 'NO-LIST'))).toEqual([
    404,
    'resource_missing',
    'price_list_id',
  ]);
  // Removing ACME's list: ACME (and ACME-WEST) pay the base price again.
  await h.catalog.assign(f.acme, null);
  const res = await h.get(`/v1/catalog/items/${f.ids['STP-100']}?cust_id=${f.west}`, h.token(f.acme));
  expect(res.body.pricing[0].unit_price.amount).toBe(1250);
});

it('restricts an item only to accounts that exist: a misspelt one is refused, nothing changes', async () => {
  const before = await h.catalog.getItem('PAP-A4');
  const misspelt = `NOPE-${h.suffix}`;
  expect(await refusal(h.catalog.setVisibility('PAP-A4', [f.acme, misspelt]))).toEqual([
    422,
    'invalid_value',
    'cust_ids[1]',
  ]);
  expect(await h.catalog.getItem('PAP-A4')).toEqual(before);
  // Still visible to the accounts it was visible to.
  const res = await h.get(`/v1/catalog/items/${f.ids['PAP-A4']}?cust_id=${f.globex}`, h.token(f.globex));
  expect(res.status).toBe(200);
});

it('refuses a currency that is not an ISO 4217 code, which no account could buy in', async () => {
  // "UDS" for "USD" used to be stored: the item was then in no account's catalog, without a word.
  expect(await refusal(h.catalog.createItem({ item_code: 'CUR-1', ...item, currency: 'UDS' }))).toEqual([
    422,
    'invalid_value',
    'currency',
  ]);
  expect(await refusal(h.catalog.createPriceList({ id: 'BAD-CUR', name: 'Typo', currency: 'EUO' }))).toEqual([
    422,
    'invalid_value',
    'currency',
  ]);
  const err = (await h.catalog
    .importItems('csv', 'item_code,name,category_id,currency,pricing\nCUR-2,X,office,UDS,1:100\n')
    .catch((e: unknown) => e)) as CatalogAdminError;
  expect(err.body).toMatchObject({
    error: { code: 'invalid_import', problems: [{ line: 2, param: 'currency' }] },
  });
  expect(await refusal(h.catalog.getItem('CUR-1'))).toEqual([404, 'resource_missing', 'item']);
});

it('two assignments of one account at once: the later one announces the prices of the list it replaced', async () => {
  const account = `RACE-${h.suffix}`;
  await h.customers.createCustomer({ cust_id: account, name: 'Race', currency: 'USD' });
  for (const [list, item] of [
    ['RACE-L1', 'PEN-001'],
    ['RACE-L2', 'STP-200'],
  ] as const) {
    await h.catalog.createPriceList({ id: list, name: list, currency: 'USD' });
    await h.catalog.setPriceListEntry(list, item, [{ min_qty: 1, amount: 1 }]);
  }
  await Promise.all([h.catalog.assign(account, 'RACE-L1'), h.catalog.assign(account, 'RACE-L2')]);
  const [kept] = (
    (await h.catalog.assignments()) as { data: { cust_id: string; price_list_id: string }[] }
  ).data.filter((a) => a.cust_id === account);
  const replaced = kept!.price_list_id === 'RACE-L1' ? 'STP-200' : 'PEN-001';
  // The replaced list's item went back to its base price for the account: announced when the list
  // was assigned and again when it was replaced. Both assignments used to read "no list before"
  // (neither waited for the other), so the second announcement was never written.
  const rows: { n: string }[] = await h
    .knex('outbox')
    .count({ n: '*' })
    .whereRaw(`payload->>'item_code' = ? and payload->'cust_ids' \\? ?`, [replaced, account]);
  expect(Number(rows[0]!.n)).toBe(2);
});
