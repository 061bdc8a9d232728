import { Money, Timestamp, DateOnly, UserRef } from './common-schemas';
import { z } from '../zod';
import { requestObject } from './request-object';

export const ORDER_STATUSES = [
  'pending_approval',
  'approved',
  'in_production',
  'shipped',
  'delivered',
  'cancelled',
] as const;
export const OrderStatus = z.enum(ORDER_STATUSES).openapi('OrderStatus');
export type OrderStatus = z.infer<typeof OrderStatus>;

export const ShippingAddress = z
  .looseObject({
    attention: z.string(),
    street_1: z.string(),
    street_2: z.string().nullable().optional().openapi({ description: "The address's second line" }),
    city: z.string(),
    region: z.string(),
    postal_code: z.string(),
    country: z.string(),
  })
  .openapi('ShippingAddress', {
    description: "A copy of the account's address taken when the order was placed",
  });

export const OrderItem = z
  .looseObject({
    id: z.string(),
    item_code: z.string(),
    description: z.string(),
    quantity: z.int().min(1),
    unit_price: Money,
    line_total: Money.openapi({ description: '`unit_price.amount * quantity`' }),
  })
  .openapi('OrderItem');
export type OrderItem = z.infer<typeof OrderItem>;

export const Cancellation = z
  .looseObject({
    cancelled_by: UserRef,
    reason: z.string().nullable(),
  })
  .openapi('Cancellation', { description: 'Who cancelled (or rejected) the order and why' });
export type Cancellation = z.infer<typeof Cancellation>;

export const Shipment = z
  .looseObject({
    carrier: z.string(),
    tracking_number: z.string(),
    shipped_at: Timestamp,
    estimated_delivery: DateOnly,
  })
  .openapi('Shipment', { description: 'Carrier and tracking data of a shipped order' });
export type Shipment = z.infer<typeof Shipment>;

export const Order = z
  .looseObject({
    id: z.string(),
    object: z.literal('order'),
    cust_id: z.string(),
    ordered_by: UserRef,
    status: OrderStatus,
    submitted_at: Timestamp,
    approved_at: Timestamp.nullable().openapi({ description: 'Set once approved' }),
    shipping_address: ShippingAddress,
    cost_center: z.string().nullable(),
    po_number: z.string().nullable(),
    items: z.array(OrderItem),
    subtotal: Money,
    tax: Money,
    shipping: Money,
    total: Money,
    cancelled_at: Timestamp.nullable().optional().openapi({ description: 'Set once cancelled' }),
    cancellation: Cancellation.nullable().optional(),
    shipment: Shipment.nullable().optional().openapi({ description: 'Set once shipped' }),
  })
  .openapi('Order', { description: 'An order of one or more items for one customer account' });
export type Order = z.infer<typeof Order>;

export const CreateOrderRequest = requestObject({
  cust_id: z.string().min(1),
  shipping_address_id: z.string().min(1),
  cost_center: z.string().max(100).optional(),
  po_number: z.string().max(100).optional(),
  items: z
    .array(
      requestObject({
        item_code: z.string().min(1),
        quantity: z.int().min(1).max(1_000_000),
      }),
    )
    .min(1)
    .max(100),
}).openapi('CreateOrderRequest', { description: 'Body of POST /v1/orders' });
export type CreateOrderRequest = z.infer<typeof CreateOrderRequest>;

export const CancelOrderRequest = requestObject({ reason: z.string().max(1000).optional() }).openapi(
  'CancelOrderRequest',
  { description: 'Optional body of POST /v1/orders/{id}/cancel' },
);
export type CancelOrderRequest = z.infer<typeof CancelOrderRequest>;
