// Every domain event of an account becomes one delivery per enabled subscription of that account or
// of an ancestor that asked for its type, written in the consumer's transaction (the one that
// records the event and marks it consumed): a restart neither loses nor doubles a delivery.
import type { Knex } from 'knex';
import { newId, type EventEnvelope } from '@ordering/contracts';
import type { AccountEventRepository } from '../data-access/account-event-repository';
import type { DeliveryRepository } from '../data-access/delivery-repository';
import type { SubscriptionRepository } from '../data-access/subscription-repository';
import type { DeliveryClock } from './delivery-clock';

export interface LineageSource {
  /** The account first, then each ancestor; undefined for an account the directory does not know. */
  lineage(custId: string): Promise<{ lineage: string[] } | undefined>;
}

/** The resource an event is about (ordered subscriptions keep one resource's events in order). */
export function resourceKeyOf(event: { data: unknown }): string | null {
  const data = event.data as { id?: unknown } | null;
  return data && typeof data.id === 'string' ? data.id : null;
}

export function fanOutUseCase(deps: {
  events: AccountEventRepository;
  subscriptions: SubscriptionRepository;
  deliveries: DeliveryRepository;
  directory: LineageSource;
  clock: DeliveryClock;
  onDeliveryQueued?: () => void;
}) {
  return async (trx: Knex.Transaction, event: EventEnvelope, traceId: string | null): Promise<number> => {
    const lineage = (await deps.directory.lineage(event.cust_id))?.lineage ?? [event.cust_id];
    // The event is recorded and its receivers read in one statement.
    const receivers = await deps.subscriptions.receivers(
      trx,
      lineage,
      event.type,
      deps.events.insertQuery(trx, event, traceId),
    );
    if (receivers.length === 0) return 0;
    const now = new Date();
    const due = deps.clock.now();
    await deps.deliveries.insert(
      trx,
      receivers.map((s) => ({
        id: newId('whdel'),
        subscription_id: s.id,
        event_id: event.id,
        event_type: event.type,
        event,
        resource_key: resourceKeyOf(event),
        ordered: s.ordering === 'per_resource',
        next_attempt_at: due,
        created_at: now,
      })),
    );
    // Wake this replica's worker once the transaction has committed.
    const done = (trx as unknown as { executionPromise?: Promise<unknown> }).executionPromise;
    if (deps.onDeliveryQueued && done) done.then(deps.onDeliveryQueued, () => {});
    return receivers.length;
  };
}
