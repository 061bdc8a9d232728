// Every event type of the API, `<entity>.<past tense>` as the spec names them.
export const EVENT_TYPES = {
  orderSubmitted: 'order.submitted',
  orderApprovalRequested: 'order.approval.requested',
  orderApproved: 'order.approved',
  orderRejected: 'order.rejected',
  orderInProduction: 'order.in_production',
  orderShipped: 'order.shipped',
  orderDelivered: 'order.delivered',
  orderCancelled: 'order.cancelled',
  userCreated: 'user.created',
  userDeactivated: 'user.deactivated',
  catalogItemUpdated: 'catalog.item.updated',
  /** Sent by POST /v1/webhooks/{id}/test to one subscription only. */
  webhookTest: 'webhook.test',
} as const;

export type EventType = (typeof EVENT_TYPES)[keyof typeof EVENT_TYPES];

export const ALL_EVENT_TYPES = Object.values(EVENT_TYPES) as [EventType, ...EventType[]];

/** The types a webhook subscription can choose (`webhook.test` goes to every subscription on demand). */
export const SUBSCRIBABLE_EVENT_TYPES = ALL_EVENT_TYPES.filter((t) => t !== EVENT_TYPES.webhookTest) as [
  EventType,
  ...EventType[],
];

export function isEventType(value: unknown): value is EventType {
  return typeof value === 'string' && (ALL_EVENT_TYPES as string[]).includes(value);
}
