// The operator commands (`ops catalog ...`) against the running service, seen through the gateway.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { catalogCommand, parseTiers } from '../src/entry-points/cli/catalog-command';
import { type CatalogHarness, startCatalogHarness } from './support/catalog-harness';

/** This file's import files, removed after its tests. */
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'catalog-cli-'));
afterAll(() => fs.rmSync(scratch, { recursive: true, force: true }));

let h: CatalogHarness;
let printed: string[];
let spy: jest.SpyInstance;

beforeAll(async () => {
  h = await startCatalogHarness();
}, 60_000);
afterAll(() => h?.stop());
beforeEach(() => {
  printed = [];
  spy = jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
    printed.push(args.join(' '));
  });
});
afterEach(() => spy.mockRestore());

const run = async (...args: string[]) => {
  printed = [];
  await catalogCommand({ url: h.catalogUrl, secret: h.secret })
    .exitOverride()
    .parseAsync(['node', 'ops', ...args]);
  return JSON.parse(printed.join('\n')) as Record<string, unknown>;
};

it('builds a catalog an account sees: categories, items, stock, visibility, a price list assigned, an import', async () => {
  const acme = `CLIA-${h.suffix}`;
  const other = `CLIB-${h.suffix}`;
  await h.customers.createCustomer({ cust_id: acme, name: 'Cli A', currency: 'USD' });
  await h.customers.createCustomer({ cust_id: other, name: 'Cli B', currency: 'USD' });

  await run('categories', 'create', 'office', '--name', 'Office');
  expect(await run('categories', 'create', 'paper', '--name', 'Paper', '--parent', 'office')).toMatchObject({
    parent_id: 'office',
  });
  expect(
    await run(
      'items',
      'create',
      'STP-1',
      '--name',
      'Stapler',
      '--category',
      'office',
      '--currency',
      'USD',
      '--price',
      '1:1250,10:1100',
    ),
  ).toMatchObject({
    item_code: 'STP-1',
    pricing: [
      { min_qty: 1, amount: 1250 },
      { min_qty: 10, amount: 1100 },
    ],
  });
  await run(
    'items',
    'create',
    'SEC-1',
    '--name',
    'Shredder',
    '--category',
    'office',
    '--currency',
    'USD',
    '--price',
    '1:9900',
  );
  await run('items', 'stock', 'STP-1', 'low_stock');
  expect(await run('items', 'visibility', 'SEC-1', '--accounts', acme)).toMatchObject({
    restricted: true,
    visible_to: [acme],
  });
  await run('price-lists', 'create', 'CLI-LIST', '--name', 'Cli list', '--currency', 'USD');
  await run('price-lists', 'set-price', 'CLI-LIST', 'STP-1', '1:999');
  expect(await run('price-lists', 'assign', acme, 'CLI-LIST')).toEqual({
    object: 'price_list_assignment',
    cust_id: acme,
    price_list_id: 'CLI-LIST',
  });

  const file = path.join(scratch, 'items.csv');
  fs.writeFileSync(file, 'item_code,name,category_id,currency,pricing\nPAP-1,Paper,paper,USD,1:599\n');
  expect(await run('items', 'import', file)).toMatchObject({ imported: 1, created: 1 });

  const seen = async (custId: string) => {
    const res = await h.get(`/v1/catalog/items?cust_id=${custId}`, h.token(custId));
    return Object.fromEntries(
      (res.body.data as { item_code: string; pricing: { unit_price: { amount: number } }[] }[]).map((i) => [
        i.item_code,
        i.pricing[0]!.unit_price.amount,
      ]),
    );
  };
  expect(await seen(acme)).toEqual({ 'PAP-1': 599, 'SEC-1': 9900, 'STP-1': 999 });
  expect(await seen(other)).toEqual({ 'PAP-1': 599, 'STP-1': 1250 });

  await run('items', 'discontinue', 'PAP-1');
  const res = await h.get(`/v1/catalog/items?cust_id=${other}&available=true`, h.token(other));
  expect(res.body.data.map((i: { item_code: string }) => i.item_code)).toEqual(['STP-1']);
});

it('refuses an import file that is not UTF-8, naming its lines, and sends nothing', async () => {
  await run('categories', 'create', 'cups', '--name', 'Cups');
  const file = path.join(scratch, 'latin1.csv');
  // Saved as Windows-1252 / Latin-1 (a spreadsheet's default): "é" is the single byte 0xE9.
  fs.writeFileSync(
    file,
    Buffer.from('item_code,name,category_id,currency,pricing\nCUP-1,Caf\xe9 cups,cups,USD,1:100\n', 'latin1'),
  );
  await expect(run('items', 'import', file)).rejects.toThrow(/line 2: not UTF-8/);
  expect(await h.knex('items').where({ item_code: 'CUP-1' }).first()).toBeUndefined();
});

it('items list --limit 0 is refused (page size 1-100), not answered with a default page', async () => {
  await expect(run('items', 'list', '--limit', '0')).rejects.toThrow(/422 invalid_value \(limit\)/);
  expect(await run('items', 'list', '--limit', '1')).toMatchObject({ object: 'list' });
});

it('reads tiers as min_qty:amount pairs and refuses anything else', () => {
  expect(parseTiers('1:1250, 10:1100')).toEqual([
    { min_qty: 1, amount: 1250 },
    { min_qty: 10, amount: 1100 },
  ]);
  expect(() => parseTiers('1=999')).toThrow(/min_qty:amount/);
});
