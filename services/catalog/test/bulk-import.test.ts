// Importing items from CSV or JSON: all or nothing, every bad line reported by its number and field.
import { CatalogAdminError } from '../src/entry-points/cli/catalog-admin-client';
import { type CatalogHarness, startCatalogHarness } from './support/catalog-harness';

let h: CatalogHarness;
beforeAll(async () => {
  h = await startCatalogHarness();
  await h.catalog.createCategory({ id: 'paper', name: 'Paper' });
}, 60_000);
afterAll(() => h?.stop());

const itemCount = async () => Number((await h.knex('items').count({ n: '*' }))[0]!.n);

async function refused(format: 'csv' | 'json', content: string) {
  const before = await itemCount();
  const err = await h.catalog.importItems(format, content).then(
    () => undefined,
    (e: unknown) => e as CatalogAdminError,
  );
  expect(err).toBeInstanceOf(CatalogAdminError);
  expect(err!.status).toBe(422);
  const error = (err!.body as { error: { code: string; problems: unknown[]; message: string } }).error;
  expect(error.code).toBe('invalid_import');
  expect(await itemCount()).toBe(before);
  return error;
}

describe('bulk import', () => {
  it('imports a CSV (quoted fields, tiers, flags) and a JSON array, then updates by item code', async () => {
    const csv = [
      'item_code,name,description,category_id,flags,images,currency,pricing,lead_time_days,lifecycle,stock_state',
      'PAP-1,Copy paper,"500 sheets, 80 g",paper,eco;bestseller,https://img.example/p1.png,USD,1:599;10:549,3,active,in_stock',
      'PAP-2,Photo paper,"Glossy,',
      'multi-line description",paper,,,USD,1:1299,,,low_stock',
    ].join('\n');
    expect(await h.catalog.importItems('csv', csv)).toEqual({
      object: 'catalog_import',
      imported: 2,
      created: 2,
      updated: 0,
      changes: 0,
    });
    const pap1 = (await h.catalog.getItem('PAP-1')) as Record<string, unknown>;
    expect(pap1).toMatchObject({
      description: '500 sheets, 80 g',
      flags: ['eco', 'bestseller'],
      images: ['https://img.example/p1.png'],
      pricing: [
        { min_qty: 1, amount: 599 },
        { min_qty: 10, amount: 549 },
      ],
      lead_time_days: 3,
    });
    expect(await h.catalog.getItem('PAP-2')).toMatchObject({
      description: 'Glossy,\nmulti-line description',
      stock_state: 'low_stock',
    });

    const json = JSON.stringify(
      [
        {
          item_code: 'PAP-2',
          name: 'Photo paper',
          category_id: 'paper',
          currency: 'USD',
          pricing: [{ min_qty: 1, amount: 1199 }],
        },
        {
          item_code: 'PAP-3',
          name: 'Card stock',
          category_id: 'paper',
          currency: 'USD',
          pricing: [{ min_qty: 1, amount: 899 }],
        },
      ],
      null,
      2,
    );
    expect(await h.catalog.importItems('json', json)).toMatchObject({
      imported: 2,
      created: 1,
      updated: 1,
      changes: 1,
    });
    expect(await h.catalog.getItem('PAP-2')).toMatchObject({ pricing: [{ min_qty: 1, amount: 1199 }] });
  });

  it('two imports of the same items at once both succeed, the later one reporting and announcing its changes', async () => {
    // Overlapping imports used to lock the same rows in opposite orders (PostgreSQL aborted one:
    // deadlock, 500), or the later one read the items as they were before the earlier one committed:
    // it said "created" for items it updated and published no change message for them.
    const codes = Array.from({ length: 2000 }, (_, i) => `RACE-${String(i).padStart(4, '0')}`);
    const file = (amount: number, order: string[]) =>
      JSON.stringify(
        order.map((item_code) => ({
          item_code,
          name: `Race ${item_code}`,
          category_id: 'paper',
          currency: 'USD',
          pricing: [{ min_qty: 1, amount }],
        })),
      );
    const results = await Promise.all([
      h.catalog.importItems('json', file(100, codes)),
      h.catalog.importItems('json', file(200, [...codes].reverse())),
    ]);
    const total = (key: 'created' | 'updated' | 'changes') => results.reduce((sum, r) => sum + r[key], 0);
    expect({ created: total('created'), updated: total('updated'), changes: total('changes') }).toEqual({
      created: 2000,
      updated: 2000,
      changes: 2000,
    });
  }, 60_000);

  it('refuses a CSV with bad lines, reporting each by line and field, and writes nothing', async () => {
    const csv = [
      'item_code,name,category_id,currency,pricing,stock_state',
      'OK-1,Fine item,paper,USD,1:100,in_stock', // 2
      'OK-2,,paper,USD,1:100,in_stock', // 3: no name
      'OK-3,Bad tiers,paper,USD,1:abc,in_stock', // 4
      'OK-4,No unit tier,paper,USD,10:100,in_stock', // 5
      'OK-5,Unknown category,nope,USD,1:100,in_stock', // 6
      'OK-1,Duplicate,paper,USD,1:100,in_stock', // 7
      'OK-6,Bad stock,paper,USD,1:100,sometimes', // 8
      'OK-7,Bad currency,paper,usd,1:100,in_stock', // 9
      'bad code!,Bad code,paper,USD,1:100,in_stock', // 10
    ].join('\n');
    const error = await refused('csv', csv);
    expect(error.problems).toEqual([
      { line: 3, param: 'name', message: expect.any(String) },
      { line: 4, param: 'pricing', message: expect.any(String) },
      { line: 5, param: 'pricing', message: expect.stringMatching(/min_qty 1/) },
      { line: 6, param: 'category_id', message: 'no category nope' },
      { line: 7, param: 'item_code', message: 'OK-1 is already on line 2' },
      { line: 8, param: 'stock_state', message: expect.any(String) },
      { line: 9, param: 'currency', message: expect.any(String) },
      { line: 10, param: 'item_code', message: expect.any(String) },
    ]);
    expect(error.message).toMatch(/line 3: name/);
  });

  it('says what a CSV price tier cell or lead time should look like', async () => {
    // These were "Invalid input: expected array, received string" (the cell is not parsed as tiers)
    // and "expected number, received string": true of the parser, no help to whoever wrote the file.
    const csv = [
      'item_code,name,category_id,currency,pricing,lead_time_days',
      'FMT-1,Negative price,paper,USD,1:-100,1', // 2
      'FMT-2,Price in dollars,paper,USD,1:12.50,1', // 3
      'FMT-3,Fractional days,paper,USD,1:100,1.5', // 4
    ].join('\n');
    expect((await refused('csv', csv)).problems).toEqual([
      { line: 2, param: 'pricing', message: expect.stringMatching(/1:1250;10:1100/) },
      { line: 3, param: 'pricing', message: expect.stringMatching(/minor unit/) },
      { line: 4, param: 'lead_time_days', message: expect.stringMatching(/whole number of days/) },
    ]);
  });

  it('refuses unknown columns and fields, bad JSON lines, and an empty file', async () => {
    expect((await refused('csv', 'item_code,name,colour\nX,Y,red')).problems).toEqual([
      { line: 1, message: 'unknown column(s): colour' },
    ]);
    // Which of two "name" cells would be the item's name? Neither: the file is refused.
    const twice = 'item_code,name,category_id,currency,pricing,name\nDUP-1,Real name,paper,USD,1:100,Other\n';
    expect((await refused('csv', twice)).problems).toEqual([
      { line: 1, message: 'column(s) named twice: name' },
    ]);
    const jsonl = [
      '{"item_code":"J-1","name":"One","category_id":"paper","currency":"USD","pricing":[{"min_qty":1,"amount":1}]}',
      '{"item_code":"J-2","name":"Two","category_id":"paper","currency":"USD","pricing":[{"min_qty":1,"amount":1}],"colour":"red"}',
      '{"item_code":"J-3", oops}',
    ].join('\n');
    expect((await refused('json', jsonl)).problems).toEqual([
      { line: 3, message: expect.stringMatching(/not valid JSON/) },
    ]);
    const array = `[\n  {"item_code":"J-1","name":"One","category_id":"paper","currency":"USD","pricing":[{"min_qty":1,"amount":1}]},\n  {"item_code":"J-2","name":"Two","category_id":"paper","currency":"USD","pricing":[{"min_qty":1,"amount":1}],"colour":"red"},\n  "not an item"\n]`;
    expect((await refused('json', array)).problems).toEqual([
      { line: 3, param: 'colour', message: expect.any(String) },
      { line: 4, message: 'an item must be a JSON object' },
    ]);
    expect((await refused('json', '[]')).problems).toEqual([{ line: 1, message: 'the file holds no item' }]);
  });
});
