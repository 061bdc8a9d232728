// The body of a delivery: its event as JSON in the spec's field order (`eventJson`: the deliveries
// table is jsonb, which keeps keys in an order of its own), the same bytes at every attempt. Most
// events are stored whole when they are fanned out. A
// `catalog.item.updated` delivery is stored as a reference to the item and gets its data, the item
// as the receiving account sees it, when it is first sent (one catalog read per account at send
// time, rather than one view per account stored at fan-out). That data is then kept with the
// delivery: every retry and replay sends the same event, as for any other type, and a receiver that
// deduplicates on `Service-Delivery` never drops a body that differs from the one it kept.
import { type CatalogItem, EVENT_TYPES, eventJson } from '@ordering/contracts';
import type { DeliveryRepository, DeliveryRow } from '../data-access/delivery-repository';
import type { CatalogViewSource } from './catalog-views';

/** Whether a catalog delivery's data is already the item (sent before), not the pending reference. */
function holdsItem(data: unknown): data is CatalogItem {
  return (
    typeof data === 'object' && data !== null && (data as { object?: unknown }).object === 'catalog_item'
  );
}

/**
 * The JSON body to send for `row`; null when there is nothing to send (the account cannot see the
 * item). Throws when the item cannot be read or kept (a failed attempt, retried).
 */
export function deliveryBodies(deps: {
  views: CatalogViewSource;
  deliveries: Pick<DeliveryRepository, 'keepEvent'>;
}): (row: DeliveryRow) => Promise<string | null> {
  return async (row) => {
    if (row.event_type !== EVENT_TYPES.catalogItemUpdated || holdsItem(row.event.data)) {
      return eventJson(row.event);
    }
    const item = await deps.views.viewFor((row.event.data as { id: string }).id, row.event.cust_id);
    if (item === null) return null;
    return eventJson(await deps.deliveries.keepEvent(row.id, { ...row.event, data: item }));
  };
}
