// Rows -> the API's resources (libs/contracts WebhookSubscription, WebhookDelivery).
import type { AttemptRow, DeliveryRow } from '../data-access/delivery-repository';
import type { SubscriptionRow } from '../data-access/subscription-repository';

export function subscriptionResource(row: SubscriptionRow, signingSecret?: string) {
  return {
    id: row.id,
    object: 'webhook_subscription' as const,
    url: row.url,
    events: row.events,
    description: row.description,
    status: row.status,
    ordering: row.ordering,
    created_at: row.created_at.toISOString(),
    ...(signingSecret === undefined ? {} : { signing_secret: signingSecret }),
  };
}

export function attemptResource(a: AttemptRow) {
  return {
    attempted_at: a.attempted_at.toISOString(),
    status_code: a.status_code,
    latency_ms: a.latency_ms,
    error: a.error,
    response_excerpt: a.response_excerpt,
  };
}

export function deliveryResource(row: DeliveryRow, attempts: AttemptRow[]) {
  return {
    id: row.id,
    object: 'webhook_delivery' as const,
    subscription_id: row.subscription_id,
    event_id: row.event_id,
    event_type: row.event_type,
    status: row.status,
    attempts: attempts.map(attemptResource),
    next_attempt_at:
      row.status === 'pending' && row.next_attempt_at ? row.next_attempt_at.toISOString() : null,
    created_at: row.created_at.toISOString(),
  };
}
