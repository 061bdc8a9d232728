// One catalog change message per item (libs/contracts messages/catalog-item-change.ts) becomes one
// `catalog.item.updated` event per account that has an enabled subscription to that type and whose
// view may have changed (every account, or those in `cust_ids` and their descendants), with one
// delivery per such subscription, in the consumer's transaction. The item itself is read at
// its first attempt as that account sees it, then kept (delivery/delivery-body.ts); an account
// that cannot see the item gets nothing.
import type { Knex } from 'knex';
import { API_VERSION, type CatalogItemChange, EVENT_TYPES, newEventId } from '@ordering/contracts';
import { type DeliveryRepository, newDelivery } from '../data-access/delivery-repository';
import type { SubscriptionRepository } from '../data-access/subscription-repository';
import type { DeliveryClock } from './delivery-clock';
import type { LineageSource } from './fan-out-use-case';

/** What a catalog delivery holds until it is sent: which item, for which account. */
export interface PendingCatalogEventData {
  id: string;
  item_code: string;
  changed: string[];
}

export function catalogFanOutUseCase(deps: {
  subscriptions: SubscriptionRepository;
  deliveries: DeliveryRepository;
  directory: LineageSource;
  clock: DeliveryClock;
  onDeliveryQueued?: () => void;
}) {
  const affected = async (custId: string, scope: string[] | null): Promise<boolean> => {
    if (scope === null) return true;
    const lineage = (await deps.directory.lineage(custId))?.lineage ?? [custId];
    return lineage.some((id) => scope.includes(id));
  };

  return async (trx: Knex.Transaction, change: CatalogItemChange): Promise<number> => {
    const subscriptions = await deps.subscriptions.receiversOfType(trx, EVENT_TYPES.catalogItemUpdated);
    const byAccount = new Map<string, typeof subscriptions>();
    for (const s of subscriptions) byAccount.set(s.cust_id, [...(byAccount.get(s.cust_id) ?? []), s]);
    const now = new Date();
    const due = deps.clock.now();
    const deliveries = [];
    for (const [custId, subs] of byAccount) {
      if (!(await affected(custId, change.cust_ids))) continue;
      const data: PendingCatalogEventData = {
        id: change.item_id,
        item_code: change.item_code,
        changed: change.changed,
      };
      const event = {
        id: newEventId(),
        object: 'event',
        type: EVENT_TYPES.catalogItemUpdated,
        created_at: change.occurred_at,
        cust_id: custId,
        api_version: API_VERSION,
        data,
      };
      for (const s of subs) {
        deliveries.push(newDelivery(s, event, change.item_id, { due, now }));
      }
    }
    await deps.deliveries.insert(trx, deliveries);
    const done = (trx as unknown as { executionPromise?: Promise<unknown> }).executionPromise;
    if (deliveries.length > 0 && deps.onDeliveryQueued && done) done.then(deps.onDeliveryQueued, () => {});
    return deliveries.length;
  };
}
