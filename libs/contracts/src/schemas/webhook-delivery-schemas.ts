// Deliveries of events to a webhook subscription and their attempts (decisions.md "Webhooks":
// deliveries and attempts are kept and listed per subscription; a delivery can be replayed with the
// same `Service-Delivery` id). Answer of `GET /v1/webhooks/{id}/deliveries` (as a list), of
// `POST /v1/webhooks/{id}/test` and of `POST .../deliveries/{delivery_id}/replay` (both 202).
import { TimeFilter, Timestamp } from './common-schemas';
import { requestObject } from './request-object';
import { z } from '../zod';

export const WEBHOOK_DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

export const WebhookDeliveryAttempt = z
  .looseObject({
    attempted_at: Timestamp,
    status_code: z
      .int()
      .nullable()
      .openapi({ description: "HTTP status of the receiver's answer; null when none came" }),
    latency_ms: z.int().min(0).nullable(),
    error: z
      .string()
      .nullable()
      .openapi({
        description:
          'Why the attempt failed (timeout, refused address, ...); `not sent: ...` when no request was ' +
          'made (then no status code or latency); null on success',
      }),
    response_excerpt: z
      .string()
      .nullable()
      .openapi({ description: "The first 512 bytes of the receiver's answer body; null when none came" }),
  })
  .openapi('WebhookDeliveryAttempt', { description: 'One HTTP POST of a delivery to the endpoint' });
export type WebhookDeliveryAttempt = z.infer<typeof WebhookDeliveryAttempt>;

export const WebhookDelivery = z
  .looseObject({
    id: z.string().openapi({ description: 'The `Service-Delivery` header value, constant across retries' }),
    object: z.literal('webhook_delivery'),
    subscription_id: z.string(),
    event_id: z.string(),
    event_type: z.string().openapi({ description: 'Event type, e.g. `order.shipped` or `webhook.test`' }),
    status: z.enum(WEBHOOK_DELIVERY_STATUSES).openapi({
      description:
        '`pending` while attempts remain, `succeeded` on a 2xx, `failed` after 24 hours of failures ' +
        '(or when those 24 hours ended while its subscription was disabled)',
    }),
    attempts: z.array(WebhookDeliveryAttempt),
    next_attempt_at: Timestamp.nullable().openapi({
      description:
        'When the next retry is due; null when none is. While the subscription is disabled a pending ' +
        'delivery is held: no attempt is made until it is enabled again, then at once',
    }),
    created_at: Timestamp,
  })
  .openapi('WebhookDelivery', { description: 'An event delivery to one subscription, with its attempts' });
export type WebhookDelivery = z.infer<typeof WebhookDelivery>;

export const ReplayWebhookDeliveriesRequest = requestObject({
  since: TimeFilter.openapi({
    description:
      'Inclusive start of the range (delivery creation time): a date-time with a zone, or a date (midnight UTC), as the list filters take',
  }),
  until: TimeFilter.optional().openapi({
    description: 'Exclusive end of the range, in the same forms; default now',
  }),
  dry_run: z.boolean().optional().openapi({ description: 'Only count what would be sent; default false' }),
}).openapi('ReplayWebhookDeliveriesRequest', {
  description:
    'Body of POST /v1/webhooks/{id}/replay: every failed delivery created in [since, until) is sent again',
});
export type ReplayWebhookDeliveriesRequest = z.infer<typeof ReplayWebhookDeliveriesRequest>;

export const WebhookReplay = z
  .looseObject({
    object: z.literal('webhook_replay'),
    count: z
      .int()
      .min(0)
      .openapi({ description: 'Failed deliveries sent again (or, on a dry run, that would be)' }),
    dry_run: z.boolean(),
  })
  .openapi('WebhookReplay', { description: 'Answer of POST /v1/webhooks/{id}/replay' });
export type WebhookReplay = z.infer<typeof WebhookReplay>;
