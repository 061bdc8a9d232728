// A disabled subscription's deliveries are held (README "Disabled subscriptions"): the worker makes
// no request for them; they stay pending, with no attempt, until the subscription is enabled again
// (then they are due at once). One whose 24 h window ends while it is held turns `failed`, as it
// would have after its last retry, with an attempt row saying why (no request was made). A
// `webhook.test` delivery is never held: testing an endpoint before enabling it is what it is for.
import type { Knex } from 'knex';
import { EVENT_TYPES } from '@ordering/contracts';
import { ConflictError } from '@ordering/errors';
import { recordDeliveryGivenUp } from '@ordering/telemetry';
import type { DeliveryRepository, DeliveryRow } from '../data-access/delivery-repository';
import { RETRY_HORIZON_MS } from './retry-schedule';

export const HELD_PAST_HORIZON_ERROR =
  'not sent: the subscription was disabled when the 24 h of retries of this delivery ended';

/** How many held deliveries one statement fails at most (the next statement takes the rest). */
const HELD_BATCH = 500;

/** The event type whose deliveries go out while their subscription is disabled. */
export const UNHELD_EVENT_TYPE = EVENT_TYPES.webhookTest;

/** Whether `row` waits (its subscription is disabled and it is not a test event). */
export function isHeld(subscription: { status: string }, row: { event_type: string }): boolean {
  return subscription.status === 'disabled' && row.event_type !== UNHELD_EVENT_TYPE;
}

/**
 * Fails the held deliveries whose 24 h ended by `now` (of one subscription, or of every disabled
 * one), a batch per statement until none is left; answers them, for `reportHeldGivenUp` once the
 * caller's transaction (if any) committed.
 */
export async function failHeldPastHorizon(
  deliveries: Pick<DeliveryRepository, 'failHeldPastHorizon'>,
  now: Date,
  scope: { subscriptionId?: string; trx?: Knex.Transaction } = {},
): Promise<DeliveryRow[]> {
  const failed: DeliveryRow[] = [];
  for (;;) {
    const batch = await deliveries.failHeldPastHorizon(
      {
        now,
        horizonMs: RETRY_HORIZON_MS,
        error: HELD_PAST_HORIZON_ERROR,
        limit: HELD_BATCH,
        unheldType: UNHELD_EVENT_TYPE,
        ...(scope.subscriptionId === undefined ? {} : { subscriptionId: scope.subscriptionId }),
      },
      scope.trx,
    );
    failed.push(...batch);
    if (batch.length < HELD_BATCH) return failed;
  }
}

/** A replay asked of a disabled subscription: nothing would be sent. */
export function subscriptionDisabled(what: string): ConflictError {
  return new ConflictError(
    'webhook_disabled',
    `This webhook subscription is disabled, so nothing is sent to it: enable it (status "enabled") before ${what}`,
  );
}

export interface GivenUpLogger {
  warn(obj: object, msg?: string): void;
}

/** Tells on-call, as for any delivery given up: a warning and the given-up metric. */
export function reportHeldGivenUp(logger: GivenUpLogger | undefined, rows: DeliveryRow[]): void {
  for (const row of rows) {
    recordDeliveryGivenUp({ eventType: row.event_type });
    const traceId = row.trace_context?.traceparent?.split('-')[1];
    logger?.warn(
      {
        delivery_id: row.id,
        subscription_id: row.subscription_id,
        event_id: row.event_id,
        event_type: row.event_type,
        attempt: row.attempt_count + 1,
        status_code: null,
        error: HELD_PAST_HORIZON_ERROR,
        next_attempt_at: null,
        ...(traceId ? { trace_id: traceId } : {}),
      },
      'webhook delivery failed for good: its retries are over',
    );
  }
}
