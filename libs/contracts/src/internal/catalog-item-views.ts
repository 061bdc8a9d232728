// The catalog's internal "item as these accounts see it" call (never routed by the gateway), made
// by the webhooks service when it turns one CatalogItemChange (../messages/catalog-item-change.ts)
// into `catalog.item.updated` events: POST /internal/v1/catalog/items/views with the item and the
// accounts that have a subscription to that type. It answers one view per requested account, in the
// request's order: the CatalogItem exactly as GET /v1/catalog/items/{id}?cust_id=... would show it
// to that account (its prices, its availability), or `item: null` with `visible: false` when that
// account cannot see the item (restricted to other accounts, not priced in its currency) or is
// unknown. Such an account gets no event. An unknown item is 404 resource_missing.
import { CatalogItem } from '../schemas/catalog-schemas';
import { requestObject } from '../schemas/request-object';
import { z } from '../zod';

export const CatalogItemViewsRequest = requestObject({
  /** The item's id (as in a CatalogItemChange); or give `item_code`. */
  item_id: z.string().min(1).optional(),
  item_code: z.string().min(1).optional(),
  cust_ids: z.array(z.string().min(1)).min(1).max(1000),
}).refine((r) => (r.item_id === undefined) !== (r.item_code === undefined), {
  message: 'give exactly one of item_id and item_code',
  path: ['item_id'],
});
export type CatalogItemViewsRequest = z.infer<typeof CatalogItemViewsRequest>;

export const CatalogItemView = z.looseObject({
  cust_id: z.string(),
  visible: z.boolean(),
  /** The item as this account sees it; null when it cannot see it. */
  item: CatalogItem.nullable(),
});
export type CatalogItemView = z.infer<typeof CatalogItemView>;

export const CatalogItemViewsResponse = z.looseObject({
  object: z.literal('catalog_item_views'),
  item_id: z.string(),
  item_code: z.string(),
  /** One per requested account, in the request's order. */
  views: z.array(CatalogItemView),
});
export type CatalogItemViewsResponse = z.infer<typeof CatalogItemViewsResponse>;

export const CATALOG_ITEM_VIEWS_PATH = '/internal/v1/catalog/items/views';
