// The deliveries of one subscription of the token's account: list (filters, newest first), one with
// its attempts, replay one (same `Service-Delivery` id, a fresh 24 h of retries) and replay every
// failed delivery of a time range (or count them on a dry run). A disabled subscription's replays
// are refused (409 `webhook_disabled`); its dry run counts.
import { NotFoundError } from '@ordering/errors';
import type { DeliveryFilter, DeliveryRepository, DeliveryRow } from '../data-access/delivery-repository';
import type { SubscriptionRepository } from '../data-access/subscription-repository';
import type { DeliveryClock } from './delivery-clock';
import { subscriptionDisabled } from './held-deliveries';

export function deliveriesUseCase(deps: {
  subscriptions: SubscriptionRepository;
  deliveries: DeliveryRepository;
  clock: DeliveryClock;
  onDeliveryQueued?: () => void;
}) {
  const mustOwn = async (custId: string, subscriptionId: string) => {
    const subscription = await deps.subscriptions.find(custId, subscriptionId);
    if (!subscription) throw new NotFoundError('No such webhook subscription', 'id');
    return subscription;
  };
  /** A replay would send nothing to a disabled subscription: refused rather than queued unseen. */
  const mustBeEnabled = async (custId: string, subscriptionId: string) => {
    if ((await mustOwn(custId, subscriptionId)).status === 'disabled')
      throw subscriptionDisabled('replaying its deliveries');
  };
  const withAttempts = async (rows: DeliveryRow[]) => {
    const attempts = await deps.deliveries.attemptsOf(rows.map((r) => r.id));
    return rows.map((row) => ({ row, attempts: attempts.get(row.id) ?? [] }));
  };

  return {
    async list(custId: string, subscriptionId: string, filter: DeliveryFilter) {
      await mustOwn(custId, subscriptionId);
      return withAttempts(await deps.deliveries.list(subscriptionId, filter));
    },

    async get(custId: string, subscriptionId: string, deliveryId: string) {
      await mustOwn(custId, subscriptionId);
      const row = await deps.deliveries.find(subscriptionId, deliveryId);
      if (!row) throw new NotFoundError('No such delivery', 'delivery_id');
      return (await withAttempts([row]))[0]!;
    },

    async replay(custId: string, subscriptionId: string, deliveryId: string) {
      await mustBeEnabled(custId, subscriptionId);
      const row = await deps.deliveries.replay(subscriptionId, deliveryId, deps.clock.now());
      if (!row) throw new NotFoundError('No such delivery', 'delivery_id');
      deps.onDeliveryQueued?.();
      return (await withAttempts([row]))[0]!;
    },

    async replayRange(
      custId: string,
      subscriptionId: string,
      range: { since: Date; until: Date; dryRun: boolean },
    ) {
      // A dry run only counts: allowed while disabled (what enabling and replaying would send).
      if (range.dryRun) await mustOwn(custId, subscriptionId);
      else await mustBeEnabled(custId, subscriptionId);
      const count = await deps.deliveries.replayFailed(
        subscriptionId,
        range.since,
        range.until,
        deps.clock.now(),
        range.dryRun,
      );
      if (!range.dryRun && count > 0) deps.onDeliveryQueued?.();
      return count;
    },
  };
}

export type DeliveriesUseCase = ReturnType<typeof deliveriesUseCase>;
