// The demo catalog the start command seeds (deploy/ops/seeders/catalog.ts) over the demo accounts,
// as the demo accounts' tokens see it through the gateway.
import type { SeedContext } from '../../../deploy/ops/seed-demo-data';
import { seedCatalog } from '../../../deploy/ops/seeders/catalog';
import { seedCustomers } from '../../../deploy/ops/seeders/customers';
import { type CatalogHarness, startCatalogHarness } from './support/catalog-harness';

let h: CatalogHarness;
beforeAll(async () => {
  h = await startCatalogHarness();
}, 60_000);
afterAll(() => h?.stop());

function context(): SeedContext {
  const port = (url: string) => Number(new URL(url).port);
  return {
    procs: [
      { name: 'customers', dir: '', port: port(h.customersUrl), env: {} },
      { name: 'catalog', dir: '', port: port(h.catalogUrl), env: {} },
    ],
    settings: {
      kafkaBrokers: [],
      pgBaseUrl: '',
      databasePrefix: '',
      redisKeyPrefix: '',
      redisUrl: '',
      internalIdentitySecret: h.secret,
      authIssuer: '',
      apiAudience: '',
    },
  };
}

interface Item {
  item_code: string;
  available: boolean;
  category: { id: string };
  pricing: { min_qty: number; unit_price: { amount: number } }[];
}

async function catalogOf(custId: string, query = ''): Promise<Item[]> {
  const items: Item[] = [];
  let cursor: string | null = null;
  do {
    const after: string = cursor ? `&starting_after=${cursor}` : '';
    const res = await h.get(`/v1/catalog/items?cust_id=${custId}&limit=100${query}${after}`, h.token(custId));
    expect(res.status).toBe(200);
    items.push(...(res.body.data as Item[]));
    cursor = res.body.next_cursor as string | null;
  } while (cursor);
  return items;
}

it('seeds at least 40 items in 4+ categories with tiers, a discontinued, an out-of-stock and a restricted item, and ACME contract prices (idempotently)', async () => {
  await seedCustomers(context(), { customers: [], users: [], clients: [] });
  await seedCatalog(context());
  await seedCatalog(context());

  const globex = await catalogOf('GLOBEX');
  const acme = await catalogOf('ACME');
  const west = await catalogOf('ACME-WEST');
  expect(globex.length).toBeGreaterThanOrEqual(40);
  expect(new Set(globex.map((i) => i.category.id)).size).toBeGreaterThanOrEqual(4);
  expect(globex.filter((i) => i.pricing.length > 1).length).toBeGreaterThanOrEqual(3);
  expect(
    globex
      .filter((i) => !i.available)
      .map((i) => i.item_code)
      .sort(),
  ).toEqual(['FTN-PEN-01', 'STP-ELEC']);

  // Restricted to ACME-WEST: not even its parent sees it.
  expect(west.map((i) => i.item_code)).toContain('SHR-CC-10');
  expect(acme.map((i) => i.item_code)).not.toContain('SHR-CC-10');
  expect(globex.map((i) => i.item_code)).not.toContain('SHR-CC-10');

  const price = (items: Item[], code: string) =>
    items.find((i) => i.item_code === code)?.pricing[0]?.unit_price.amount;
  expect(price(globex, 'PAP-A4-500')).toBe(599);
  expect(price(acme, 'PAP-A4-500')).toBe(529);
  expect(price(west, 'PAP-A4-500')).toBe(529);
  expect(price(acme, 'KBD-WL-US')).toBe(price(globex, 'KBD-WL-US'));

  // A sub-category tree: office holds writing, paper and filing items.
  const office = await catalogOf('ACME', '&category_id=office');
  expect(new Set(office.map((i) => i.category.id))).toEqual(new Set(['writing', 'paper', 'filing']));
  // The README's example: stems, tiers, ACME's contract price, an unavailable item, a near spelling.
  const staplers = (await catalogOf('ACME', '&q=staplers')).map((i) => [
    i.item_code,
    i.pricing[0]?.unit_price.amount,
    i.available,
  ]);
  expect(staplers).toEqual([
    ['STP-DESK', 999, true],
    ['STP-ELEC', 5900, false],
    ['STP-LONG', 2400, true],
    ['STA-26-5K', 299, true],
    ['STR-REM', 350, true],
  ]);
});
