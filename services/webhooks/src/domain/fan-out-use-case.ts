// Every domain event of an account becomes one delivery per enabled subscription of that account or
// of an ancestor that asked for its type, written in the consumer's transaction (the one that
// records the event and marks it consumed): a restart neither loses nor doubles a delivery.
//
// The events of one consumer transaction (a fetched batch) are written together just before it
// commits: one statement records them all and reads the subscriptions they may go to, one more
// inserts their deliveries (when any), instead of two or three statements per event.
import type { Knex } from 'knex';
import type { EventEnvelope } from '@ordering/contracts';
import { injectTraceHeaders } from '@ordering/telemetry';
import type { AccountEventRepository } from '../data-access/account-event-repository';
import { type DeliveryRepository, type NewDelivery, newDelivery } from '../data-access/delivery-repository';
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

/** An event waiting for its transaction's write, with what was known when it was handled. */
interface PendingEvent {
  event: EventEnvelope;
  traceId: string | null;
  /** The trace context of the event's consumer span, kept with its deliveries. */
  trace: Record<string, string>;
  lineage: string[];
}

/** Runs `work` before the transaction commits (the consumer's `beforeCommit`). */
export type BeforeCommit = (work: () => Promise<void>) => void;

export function fanOutUseCase(deps: {
  events: AccountEventRepository;
  subscriptions: SubscriptionRepository;
  deliveries: DeliveryRepository;
  directory: LineageSource;
  clock: DeliveryClock;
  onDeliveryQueued?: () => void;
}) {
  const pendingOf = new WeakMap<Knex.Transaction, PendingEvent[]>();

  const write = async (trx: Knex.Transaction, pending: PendingEvent[]): Promise<void> => {
    const custIds = [...new Set(pending.flatMap((p) => p.lineage))];
    const types = [...new Set(pending.map((p) => p.event.type))];
    const candidates = await deps.subscriptions.receiversOfAny(
      trx,
      custIds,
      types,
      deps.events.insertQuery(trx, pending),
    );
    const now = new Date();
    const due = deps.clock.now();
    const deliveries: NewDelivery[] = [];
    for (const { event, lineage, trace } of pending) {
      for (const s of candidates) {
        if (!lineage.includes(s.cust_id) || !s.events.includes(event.type)) continue;
        deliveries.push(newDelivery(s, event, resourceKeyOf(event), { due, now }, trace));
      }
    }
    if (deliveries.length === 0) return;
    await deps.deliveries.insert(trx, deliveries);
    // Wake this replica's worker once the transaction has committed.
    const done = (trx as unknown as { executionPromise?: Promise<unknown> }).executionPromise;
    if (deps.onDeliveryQueued && done) done.then(deps.onDeliveryQueued, () => {});
  };

  /**
   * Records `event` and queues its deliveries in `trx`: at once, or with `beforeCommit` together
   * with the other events of the transaction just before it commits.
   */
  return async (
    trx: Knex.Transaction,
    event: EventEnvelope,
    traceId: string | null,
    beforeCommit?: BeforeCommit,
  ): Promise<void> => {
    const lineage = (await deps.directory.lineage(event.cust_id))?.lineage ?? [event.cust_id];
    const entry: PendingEvent = { event, traceId, trace: injectTraceHeaders(), lineage };
    if (!beforeCommit) return write(trx, [entry]);
    let pending = pendingOf.get(trx);
    if (!pending) {
      const gathered: PendingEvent[] = [];
      pending = gathered;
      pendingOf.set(trx, gathered);
      beforeCommit(() => {
        pendingOf.delete(trx);
        return write(trx, gathered);
      });
    }
    pending.push(entry);
  };
}
