// A fixed catalog for the behaviour tests: three account trees (ACME with ACME-WEST below it,
// GLOBEX, all USD; EURO in EUR), a category tree, items chosen for search relevance, a restricted
// item, a discontinued and an out-of-stock one, and price lists: ACME's (inherited by ACME-WEST)
// and ACME-WEST's own for one item.
import type { CatalogHarness } from './catalog-harness';

export interface Fixture {
  acme: string;
  west: string;
  globex: string;
  euro: string;
  /** Item ids by item code. */
  ids: Record<string, string>;
}

export const ITEMS = [
  {
    item_code: 'STP-100',
    name: 'Stapler',
    description: 'Heavy-duty desk stapler for up to 20 sheets',
    category_id: 'writing',
    pricing: [
      { min_qty: 1, amount: 1250 },
      { min_qty: 10, amount: 1100 },
      { min_qty: 50, amount: 990 },
    ],
    lead_time_days: 2,
    flags: ['bestseller'],
  },
  {
    item_code: 'STP-200',
    name: 'Long reach stapler',
    description: 'Staples booklets in the middle',
    category_id: 'writing',
    pricing: [{ min_qty: 1, amount: 2400 }],
  },
  {
    item_code: 'STR-300',
    name: 'Staple remover',
    description: 'Removes staples without tearing paper',
    category_id: 'writing',
    pricing: [{ min_qty: 1, amount: 350 }],
  },
  {
    item_code: 'PEN-001',
    name: 'Ballpoint pen, blue',
    description: 'Smooth ink; sits next to the stapler on every desk',
    category_id: 'writing',
    pricing: [
      { min_qty: 1, amount: 120 },
      { min_qty: 100, amount: 95 },
    ],
  },
  {
    item_code: 'PAP-A4',
    name: 'Copy paper A4',
    description: '500 sheets, 80 g/m2',
    category_id: 'paper',
    pricing: [{ min_qty: 1, amount: 599 }],
  },
  {
    item_code: 'CHR-10',
    name: 'Office chair',
    description: 'Ergonomic chair',
    category_id: 'furniture',
    pricing: [{ min_qty: 1, amount: 18900 }],
    lifecycle: 'discontinued',
  },
  {
    item_code: 'DSK-20',
    name: 'Standing desk',
    description: 'Electric height adjustable desk',
    category_id: 'furniture',
    pricing: [{ min_qty: 1, amount: 45900 }],
    stock_state: 'out_of_stock',
  },
  {
    item_code: 'SEC-1',
    name: 'Secure shredder',
    description: 'Cross-cut shredder for confidential paper',
    category_id: 'office',
    pricing: [{ min_qty: 1, amount: 25900 }],
  },
  {
    item_code: 'LAP-13',
    name: 'Laptop stand',
    description: 'Aluminium stand',
    category_id: 'tech',
    pricing: [{ min_qty: 1, amount: 3900 }],
  },
] as const;

export async function loadFixture(h: CatalogHarness): Promise<Fixture> {
  const acme = `ACME-${h.suffix}`;
  const west = `${acme}-WEST`;
  const globex = `GLOBEX-${h.suffix}`;
  const euro = `EURO-${h.suffix}`;
  await h.customers.createCustomer({ cust_id: acme, name: 'Acme', currency: 'USD' });
  await h.customers.createCustomer({
    cust_id: west,
    name: 'Acme West',
    parent_cust_id: acme,
    currency: 'USD',
  });
  await h.customers.createCustomer({ cust_id: globex, name: 'Globex', currency: 'USD' });
  await h.customers.createCustomer({ cust_id: euro, name: 'Euro GmbH', currency: 'EUR' });

  await h.catalog.createCategory({ id: 'office', name: 'Office supplies' });
  await h.catalog.createCategory({ id: 'writing', name: 'Writing and stapling', parent_id: 'office' });
  await h.catalog.createCategory({ id: 'paper', name: 'Paper', parent_id: 'office' });
  await h.catalog.createCategory({ id: 'furniture', name: 'Furniture' });
  await h.catalog.createCategory({ id: 'tech', name: 'Technology' });

  const ids: Record<string, string> = {};
  for (const item of ITEMS) {
    const created = await h.catalog.createItem({ currency: 'USD', ...item });
    ids[item.item_code] = created.id;
  }
  await h.catalog.setVisibility('SEC-1', [acme]);
  await h.catalog.setAvailability('PAP-A4', globex, false);

  await h.catalog.createPriceList({ id: 'ACME-CONTRACT', name: 'Acme contract', currency: 'USD' });
  await h.catalog.setPriceListEntry('ACME-CONTRACT', 'STP-100', [
    { min_qty: 1, amount: 999 },
    { min_qty: 10, amount: 899 },
  ]);
  await h.catalog.assign(acme, 'ACME-CONTRACT');
  await h.catalog.createPriceList({ id: 'WEST-PENS', name: 'Acme West pens', currency: 'USD' });
  await h.catalog.setPriceListEntry('WEST-PENS', 'PEN-001', [{ min_qty: 1, amount: 99 }]);
  await h.catalog.assign(west, 'WEST-PENS');
  await h.catalog.createPriceList({ id: 'EURO-LIST', name: 'Euro prices', currency: 'EUR' });
  await h.catalog.setPriceListEntry('EURO-LIST', 'STP-100', [{ min_qty: 1, amount: 1150 }]);
  await h.catalog.assign(euro, 'EURO-LIST');
  return { acme, west, globex, euro, ids };
}
