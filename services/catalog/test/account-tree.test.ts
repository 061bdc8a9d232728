// How a change in the account tree reaches the catalog: a new child account is seen on its first
// request (unknown accounts are never cached), a moved account within the lineage cache time
// (LINEAGE_CACHE_TTL_MS, here 300 ms), with the terms it now inherits.
import { type CatalogHarness, startCatalogHarness } from './support/catalog-harness';
import { type Fixture, loadFixture } from './support/catalog-fixture';

let h: CatalogHarness;
let f: Fixture;
beforeAll(async () => {
  h = await startCatalogHarness({ env: { LINEAGE_CACHE_TTL_MS: '300' } });
  f = await loadFixture(h);
}, 60_000);
afterAll(() => h?.stop());

const staplerPrice = async (custId: string, tokenCustId: string) => {
  const res = await h.get(`/v1/catalog/items?cust_id=${custId}&q=STP-100`, h.token(tokenCustId));
  expect(res.status).toBe(200);
  return res.body.data[0]?.pricing[0]?.unit_price.amount as number;
};

it('a new child account sees its parent terms at once; once moved, its new parent terms within the cache time', async () => {
  const child = `${f.globex}-NEW`;
  // Asked (and missed) before it exists: nothing is cached for an unknown account.
  expect((await h.get(`/v1/catalog/items?cust_id=${child}`, h.token(f.globex))).status).toBe(404);
  await h.customers.createCustomer({
    cust_id: child,
    name: 'New child',
    parent_cust_id: f.globex,
    currency: 'USD',
  });
  expect(await staplerPrice(child, f.globex)).toBe(1250);

  await h.customers.updateCustomer(child, { parent_cust_id: f.acme });
  await new Promise((r) => setTimeout(r, 400));
  // Now under ACME: ACME's contract price, within ACME's reach and no longer GLOBEX's.
  expect(await staplerPrice(child, f.acme)).toBe(999);
  expect((await h.get(`/v1/catalog/items?cust_id=${child}`, h.token(f.globex))).status).toBe(404);
});
