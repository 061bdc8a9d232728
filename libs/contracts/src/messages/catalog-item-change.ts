// One message per changed catalog item, carried on TOPICS.catalogItems keyed by the item id (so one
// item's changes keep their order). It says WHAT changed, never a price: prices and visibility are
// per account, and a message per account x item would put millions of messages on Kafka for one
// base-price change. The webhooks service turns a change into `catalog.item.updated` events only for
// accounts with a subscription to that type, asking the catalog for the item as each of those
// accounts sees it (POST /internal/v1/catalog/items/views, contract in
// ../internal/catalog-item-views.ts). Design: docs/architecture.md "Catalog changes".
import { Timestamp } from '../schemas/common-schemas';
import { TOPICS } from '../topics';
import { z } from '../zod';

/** What a `catalog.item.updated` is about (spec: pricing, availability or description). */
export const CATALOG_CHANGE_ASPECTS = ['pricing', 'availability', 'description'] as const;
export type CatalogChangeAspect = (typeof CATALOG_CHANGE_ASPECTS)[number];

export const CatalogItemChange = z
  .looseObject({
    id: z.string().min(1).openapi({ description: 'Unique id of this change (idempotency key), `chg_...`' }),
    item_id: z.string().min(1),
    item_code: z.string().min(1),
    changed: z.array(z.enum(CATALOG_CHANGE_ASPECTS)).min(1),
    /**
     * Whose view may have changed: null for every account that sees the item (a base price, the
     * description, the stock state); otherwise these accounts and their descendants (a price list,
     * an availability or visibility rule of theirs). Accounts outside it see nothing new.
     */
    cust_ids: z.array(z.string().min(1)).nullable(),
    occurred_at: Timestamp,
  })
  .openapi('CatalogItemChange', {
    description: 'A catalog item changed in pricing, availability or description',
  });
export type CatalogItemChange = z.infer<typeof CatalogItemChange>;

export const CATALOG_ITEM_CHANGE_TOPIC = TOPICS.catalogItems;
/** The `event-type` header of a change message. */
export const CATALOG_ITEM_CHANGE_TYPE = 'catalog.item.changed';

/** Kafka key of a change: the item id, so one item's changes keep their order. */
export function catalogItemChangeKey(change: CatalogItemChange): string {
  return change.item_id;
}

export function parseCatalogItemChange(value: unknown): CatalogItemChange {
  return CatalogItemChange.parse(value);
}
