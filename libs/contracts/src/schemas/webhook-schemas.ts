import { Timestamp } from './common-schemas';
import { SUBSCRIBABLE_EVENT_TYPES } from '../events/event-types';
import { z } from '../zod';
import { requestObject } from './request-object';

export const WEBHOOK_STATUSES = ['enabled', 'disabled'] as const;

/** `per_resource`: one resource's events (an order's, a user's) arrive in order, each after the previous succeeded or failed for good. */
export const WEBHOOK_ORDERINGS = ['none', 'per_resource'] as const;
export const WebhookOrdering = z.enum(WEBHOOK_ORDERINGS).openapi('WebhookOrdering', {
  description:
    '`none` (default): deliveries run in parallel and may arrive out of order. `per_resource`: the ' +
    'events of one resource (e.g. one order) are delivered in the order they happened; the next waits ' +
    'until the previous one succeeded or failed for good (24 hours).',
});

export const SubscribableEventType = z
  .enum(SUBSCRIBABLE_EVENT_TYPES)
  .openapi('SubscribableEventType', { description: 'An event type a subscription can receive' });

export const WebhookSubscription = z
  .looseObject({
    id: z.string(),
    object: z.literal('webhook_subscription'),
    url: z.string().openapi({ description: 'HTTPS endpoint that receives events' }),
    events: z.array(SubscribableEventType),
    description: z.string().nullable(),
    status: z.enum(WEBHOOK_STATUSES).openapi({
      description:
        '`enabled` after creation; `disabled`: no request is sent to the endpoint (its pending ' +
        'deliveries wait until it is enabled again)',
    }),
    ordering: WebhookOrdering,
    created_at: Timestamp,
  })
  .openapi('WebhookSubscription', { description: 'A subscription of an HTTPS endpoint to event types' });
export type WebhookSubscription = z.infer<typeof WebhookSubscription>;

/** The answer of creation and rotate_secret: the only ones that show the signing secret. */
export const WebhookSubscriptionWithSecret = z
  .looseObject({
    ...WebhookSubscription.shape,
    signing_secret: z.string().openapi({
      description:
        "The secret that signs this subscription's webhooks (`whsec_...`); shown only in this answer, " +
        'it cannot be read again',
    }),
  })
  .openapi('WebhookSubscriptionWithSecret', {
    description: 'A subscription with its signing secret: the answer of creation and of rotate_secret',
  });
export type WebhookSubscriptionWithSecret = z.infer<typeof WebhookSubscriptionWithSecret>;

export const CreateWebhookRequest = requestObject({
  url: z.url({ protocol: /^https?$/ }).max(2048),
  events: z.array(SubscribableEventType).min(1),
  description: z.string().max(500).optional(),
  ordering: WebhookOrdering.optional(),
}).openapi('CreateWebhookRequest', { description: 'Body of POST /v1/webhooks (`url` must be https)' });
export type CreateWebhookRequest = z.infer<typeof CreateWebhookRequest>;

export const UpdateWebhookRequest = requestObject({
  url: CreateWebhookRequest.shape.url,
  events: CreateWebhookRequest.shape.events,
  description: z.string().max(500).nullable(),
  status: z.enum(WEBHOOK_STATUSES),
  ordering: WebhookOrdering,
})
  .partial()
  .openapi('UpdateWebhookRequest', { description: 'Body of PATCH /v1/webhooks/{id}: the fields to change' });
export type UpdateWebhookRequest = z.infer<typeof UpdateWebhookRequest>;

export const DeletedWebhookSubscription = z
  .looseObject({
    id: z.string(),
    object: z.literal('webhook_subscription'),
    deleted: z.literal(true),
  })
  .openapi('DeletedWebhookSubscription', { description: 'Answer of DELETE /v1/webhooks/{id}' });
