// Fulfilment updates from the ERP/warehouse (or the operator CLI), carried on TOPICS.fulfilment
// keyed by order id. The orders service applies legal transitions and dead-letters the others.
import { Timestamp } from '../schemas/common-schemas';
import { Shipment } from '../schemas/order-schemas';
import { TOPICS } from '../topics';
import { z } from '../zod';

export const FULFILMENT_STATUSES = ['in_production', 'shipped', 'delivered'] as const;

const common = {
  id: z.string().min(1).openapi({ description: 'Unique id of this update (idempotency key)' }),
  order_id: z.string().min(1),
  occurred_at: Timestamp.openapi({ description: 'When it happened in the fulfilment system' }),
};

export const FulfilmentUpdate = z
  .discriminatedUnion('status', [
    z.looseObject({ ...common, status: z.literal('in_production') }),
    z.looseObject({ ...common, status: z.literal('shipped'), shipment: Shipment }),
    z.looseObject({ ...common, status: z.literal('delivered') }),
  ])
  .openapi('FulfilmentUpdate', { description: 'A production, shipping or delivery update of one order' });
export type FulfilmentUpdate = z.infer<typeof FulfilmentUpdate>;

export const FULFILMENT_TOPIC = TOPICS.fulfilment;

/** Kafka key of a fulfilment update: the order id, so one order's updates keep their order. */
export function fulfilmentUpdateKey(update: FulfilmentUpdate): string {
  return update.order_id;
}

export function parseFulfilmentUpdate(value: unknown): FulfilmentUpdate {
  return FulfilmentUpdate.parse(value);
}
