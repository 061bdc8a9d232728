import {
  CATALOG_ITEM_CHANGE_TOPIC,
  CatalogItemViewsRequest,
  TOPICS,
  catalogItemChangeKey,
  parseCatalogItemChange,
} from '../src';

describe('catalog internal contracts', () => {
  it('a views request names exactly one of item_id and item_code', () => {
    expect(CatalogItemViewsRequest.safeParse({ item_id: 'itm_1', cust_ids: ['ACME'] }).success).toBe(true);
    expect(CatalogItemViewsRequest.safeParse({ item_code: 'PEN', cust_ids: ['ACME'] }).success).toBe(true);
    expect(CatalogItemViewsRequest.safeParse({ cust_ids: ['ACME'] }).success).toBe(false);
    expect(
      CatalogItemViewsRequest.safeParse({ item_id: 'itm_1', item_code: 'PEN', cust_ids: ['ACME'] }).success,
    ).toBe(false);
    expect(CatalogItemViewsRequest.safeParse({ item_id: 'itm_1', cust_ids: [] }).success).toBe(false);
  });

  it('a change message travels on the catalog items topic keyed by item id', () => {
    const change = parseCatalogItemChange({
      id: 'chg_1',
      item_id: 'itm_1',
      item_code: 'PEN',
      changed: ['pricing'],
      cust_ids: null,
      occurred_at: '2026-11-24T00:00:00.000Z',
    });
    expect(CATALOG_ITEM_CHANGE_TOPIC).toBe(TOPICS.catalogItems);
    expect(catalogItemChangeKey(change)).toBe('itm_1');
    expect(() => parseCatalogItemChange({ ...change, changed: [] })).toThrow();
    expect(() => parseCatalogItemChange({ ...change, changed: ['colour'] })).toThrow();
  });
});
