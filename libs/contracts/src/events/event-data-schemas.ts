// The `data` of each event type. Order events carry the Order as the REST API shows it, plus the
// extra field of decisions.md "Webhooks"; user events carry the User; catalog.item.updated the item
// as seen by the receiving account (the envelope's cust_id).
import { Timestamp, UserRef } from '../schemas/common-schemas';
import { CatalogItem } from '../schemas/catalog-schemas';
import { Cancellation, Order, Shipment } from '../schemas/order-schemas';
import { User } from '../schemas/user-schemas';
import { z } from '../zod';
import { EVENT_TYPES, type EventType } from './event-types';

export const Rejection = z
  .looseObject({
    reason: z.string(),
    rejected_by: UserRef,
    rejected_at: Timestamp,
  })
  .openapi('Rejection', { description: 'Who rejected the order, when and why' });

export const ApprovalRequest = z
  .looseObject({
    id: z.string().openapi({ description: 'The `approval_id` to approve or reject' }),
    approver: z.string().openapi({ description: 'Login of the approver' }),
    step: z.int().min(1),
  })
  .openapi('ApprovalRequest', { description: 'The approval step the order entered' });

export const OrderRejectedData = Order.extend({ rejection: Rejection }).openapi('OrderRejectedData');
export const OrderCancelledData = Order.extend({ cancellation: Cancellation }).openapi('OrderCancelledData');
export const OrderApprovalRequestedData = Order.extend({ approval: ApprovalRequest }).openapi(
  'OrderApprovalRequestedData',
);
/** The spec names only `id`, `object`, `status` and `shipment`; the rest of the order may follow. */
export const OrderShippedData = Order.partial()
  .extend({
    id: z.string(),
    object: z.literal('order'),
    status: z.literal('shipped'),
    shipment: Shipment,
  })
  .openapi('OrderShippedData');

export const WebhookTestData = z
  .looseObject({
    webhook_id: z.string().openapi({ description: 'The subscription the test was sent to' }),
    message: z.string(),
  })
  .openapi('WebhookTestData');

export const EVENT_DATA_SCHEMAS = {
  [EVENT_TYPES.orderSubmitted]: Order,
  [EVENT_TYPES.orderApprovalRequested]: OrderApprovalRequestedData,
  [EVENT_TYPES.orderApproved]: Order,
  [EVENT_TYPES.orderRejected]: OrderRejectedData,
  [EVENT_TYPES.orderInProduction]: Order,
  [EVENT_TYPES.orderShipped]: OrderShippedData,
  [EVENT_TYPES.orderDelivered]: Order,
  [EVENT_TYPES.orderCancelled]: OrderCancelledData,
  [EVENT_TYPES.userCreated]: User,
  [EVENT_TYPES.userDeactivated]: User,
  [EVENT_TYPES.catalogItemUpdated]: CatalogItem,
  [EVENT_TYPES.webhookTest]: WebhookTestData,
} as const satisfies Record<EventType, z.ZodType>;

export type EventDataSchemas = typeof EVENT_DATA_SCHEMAS;
export type EventDataOf<T extends EventType> = z.infer<EventDataSchemas[T]>;
