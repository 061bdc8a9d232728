// catalog.item.updated: the catalog publishes ONE change message per changed item (never one per
// account), and the events a subscriber's account would receive, built as the webhooks service
// builds them (the change, then the item as that account sees it), carry that account's price.
import {
  CATALOG_ITEM_CHANGE_TOPIC,
  CATALOG_ITEM_VIEWS_PATH,
  type CatalogItem,
  type CatalogItemChange,
  type CatalogItemViewsResponse,
  parseCatalogItemChange,
} from '@ordering/contracts';
import { type ReadMessage, readTopic, testKafkaClient, type TopicReader } from '@ordering/testing';
import { type CatalogHarness, startCatalogHarness } from './support/catalog-harness';
import { type Fixture, loadFixture } from './support/catalog-fixture';

let h: CatalogHarness;
let f: Fixture;
let topic: TopicReader;
const kafka = testKafkaClient();
/**
 * How long the outbox relay may take to put a message on the topic. It is well under a second on
 * a quiet machine; a full run beside other work once needed more than 20 s (the wait ends as soon
 * as the messages are there).
 */
const RELAY_WAIT_MS = 60_000;
jest.setTimeout(2 * RELAY_WAIT_MS);
beforeAll(async () => {
  h = await startCatalogHarness();
  f = await loadFixture(h);
  // From the beginning: item ids are unique to this test's database, so filtering by them is exact.
  topic = await readTopic(kafka, CATALOG_ITEM_CHANGE_TOPIC, 'beginning');
  await published();
}, 60_000);

/** Waits until every outbox row is published and read back from the topic. */
async function published(): Promise<void> {
  const rows: { event_id: string }[] = await h.knex('outbox').select('event_id');
  const ids = new Set(rows.map((r) => r.event_id));
  await topic.waitFor(
    (ms) => ms.filter((m) => ids.has(m.headers['event-id'] ?? '')).length >= ids.size,
    RELAY_WAIT_MS,
  );
}

/** The changes of an item published by `action`. */
async function changesBy(itemId: string, action: () => Promise<unknown>, expected = 1) {
  await published();
  const seen = changesOf(itemId).length;
  await action();
  await topic.waitFor(() => changesOf(itemId).length >= seen + expected, RELAY_WAIT_MS);
  await published();
  return changesOf(itemId).slice(seen);
}
afterAll(async () => {
  await topic?.stop();
  await h?.stop();
});

/**
 * Each message read is parsed once: the topic holds every catalog test's messages since the broker
 * started (the reader starts at the beginning), and the checks run at every message that arrives.
 * Parsing them all again at each check was quadratic: a full run's thousands of messages made one
 * wait take minutes.
 */
const parsedChanges = new WeakMap<ReadMessage, CatalogItemChange>();
const changeIn = (m: ReadMessage): CatalogItemChange => {
  let change = parsedChanges.get(m);
  if (!change) {
    change = parseCatalogItemChange(JSON.parse(m.value!));
    parsedChanges.set(m, change);
  }
  return change;
};
const changesOf = (itemId: string) => topic.messages.map(changeIn).filter((c) => c.item_id === itemId);

/** What the webhooks service does for one change: the views of the subscribing accounts. */
async function eventsFor(itemId: string, subscribers: string[]): Promise<Map<string, CatalogItem>> {
  const res = await h
    .internal()
    .post(CATALOG_ITEM_VIEWS_PATH)
    .set('X-Ordering-Identity', h.internalIdentity())
    .send({ item_id: itemId, cust_ids: subscribers });
  const body = res.body as CatalogItemViewsResponse;
  return new Map(body.views.filter((v) => v.visible).map((v) => [v.cust_id, v.item!]));
}

describe('catalog change events', () => {
  it('a base price change is one message for every account; each subscriber sees its own price', async () => {
    const id = f.ids['STP-100']!;
    const changes = await changesBy(id, () =>
      h.catalog.updateItem('STP-100', { pricing: [{ min_qty: 1, amount: 1300 }] }),
    );
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ item_code: 'STP-100', changed: ['pricing'], cust_ids: null });

    const events = await eventsFor(id, [f.acme, f.west, f.globex, f.euro]);
    const unitPrice = (c: string) => events.get(c)?.pricing[0]?.unit_price;
    expect(unitPrice(f.globex)).toEqual({ amount: 1300, currency: 'USD' });
    expect(unitPrice(f.acme)).toEqual({ amount: 999, currency: 'USD' });
    expect(unitPrice(f.west)).toEqual({ amount: 999, currency: 'USD' });
    expect(unitPrice(f.euro)).toEqual({ amount: 1150, currency: 'EUR' });
  });

  it("a price list change names the accounts it is assigned to; the others' view did not change", async () => {
    const id = f.ids['PEN-001']!;
    const changes = await changesBy(id, () =>
      h.catalog.setPriceListEntry('ACME-CONTRACT', 'PEN-001', [{ min_qty: 1, amount: 105 }]),
    );
    expect(changes).toEqual([expect.objectContaining({ changed: ['pricing'], cust_ids: [f.acme] })]);
    const events = await eventsFor(id, [f.acme, f.west]);
    expect(events.get(f.acme)?.pricing[0]?.unit_price.amount).toBe(105);
    // ACME-WEST's own list still prices the pen for it.
    expect(events.get(f.west)?.pricing[0]?.unit_price.amount).toBe(99);
  });

  it('stock and description changes say what changed; an account that cannot see the item gets nothing', async () => {
    const id = f.ids['SEC-1']!;
    const changes = await changesBy(id, () =>
      h.catalog.updateItem('SEC-1', { stock_state: 'out_of_stock', description: 'Now P-4 rated' }),
    );
    expect(changes).toHaveLength(1);
    expect(changes[0]).toMatchObject({ changed: ['availability', 'description'], cust_ids: null });
    const events = await eventsFor(id, [f.acme, f.globex]);
    expect([...events.keys()]).toEqual([f.acme]);
    expect(events.get(f.acme)).toMatchObject({ available: false, description: 'Now P-4 rated' });
  });

  it('setting a price list entry, a visibility or an availability rule to what it already is publishes nothing', async () => {
    const id = f.ids['LAP-13']!;
    const tiers = [
      { min_qty: 1, amount: 3500 },
      { min_qty: 10, amount: 3300 },
    ];
    const first = await changesBy(
      id,
      async () => {
        await h.catalog.setPriceListEntry('ACME-CONTRACT', 'LAP-13', tiers);
        await h.catalog.setVisibility('LAP-13', [f.acme, f.globex]);
        await h.catalog.setAvailability('LAP-13', f.west, false);
      },
      3,
    );
    expect(first.map((c) => c.changed)).toEqual([['pricing'], ['availability'], ['availability']]);
    // The same three again (the visibility in another order), then one real change: only that one
    // is published, so a re-run of an idempotent seed or import sends subscribers nothing.
    const again = await changesBy(id, async () => {
      await h.catalog.setPriceListEntry('ACME-CONTRACT', 'LAP-13', [...tiers].reverse());
      await h.catalog.setVisibility('LAP-13', [f.globex, f.acme, f.acme]);
      await h.catalog.setAvailability('LAP-13', f.west, false);
      await h.catalog.updateItem('LAP-13', { description: 'Aluminium stand, foldable' });
    });
    expect(again).toEqual([expect.objectContaining({ changed: ['description'], cust_ids: null })]);
  });

  it('a bulk import of many items is one message per changed existing item, none for unchanged or new ones', async () => {
    const lines = ['item_code,name,category_id,currency,pricing'];
    for (let i = 0; i < 300; i++) lines.push(`BULK-${i},Bulk ${i},tech,USD,1:100`);
    await h.catalog.importItems('csv', lines.join('\n'));
    lines[1] = 'BULK-0,Bulk zero renamed,tech,USD,1:100';
    lines[2] = 'BULK-1,Bulk 1,tech,USD,1:150';
    lines.push('BULK-NEW,Brand new,tech,USD,1:100');
    const result = await h.catalog.importItems('csv', lines.join('\n'));
    expect(result).toMatchObject({ imported: 301, created: 1, updated: 300, changes: 2 });
    const rows: { id: string }[] = await h.knex('items').select('id').where('item_code', 'like', 'BULK-%');
    const bulkIds = new Set(rows.map((r) => r.id));
    const bulkChanges = () => topic.messages.map(changeIn).filter((c) => bulkIds.has(c.item_id));
    await topic.waitFor(() => bulkChanges().length >= 2, RELAY_WAIT_MS);
    await published();
    expect(
      bulkChanges()
        .map((c) => [c.item_code, c.changed])
        .sort(),
    ).toEqual([
      ['BULK-0', ['description']],
      ['BULK-1', ['pricing']],
    ]);
  });
});
