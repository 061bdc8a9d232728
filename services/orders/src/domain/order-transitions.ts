// The one table of the order's life: every legal transition, what triggers it and the event it
// fires. The aggregate (order.ts) applies only what is listed here; the 409
// `order_not_cancellable`, the fulfilment feed's legality checks and the state diagram of the
// README (`stateDiagram()`, checked by a test) all read this table.
import { EVENT_TYPES, type EventType, type OrderStatus } from '@ordering/contracts';

export type Trigger = 'approve' | 'reject' | 'cancel' | 'start_production' | 'ship' | 'deliver';

export interface Transition {
  from: OrderStatus;
  trigger: Trigger;
  to: OrderStatus;
  event: EventType;
  /** Who or what pulls the trigger, for the diagram. */
  by: string;
}

export const TRANSITIONS: readonly Transition[] = [
  {
    from: 'pending_approval',
    trigger: 'approve',
    to: 'approved',
    event: EVENT_TYPES.orderApproved,
    by: 'last approval step approved',
  },
  {
    from: 'pending_approval',
    trigger: 'reject',
    to: 'cancelled',
    event: EVENT_TYPES.orderRejected,
    by: 'an approver rejects',
  },
  {
    from: 'pending_approval',
    trigger: 'cancel',
    to: 'cancelled',
    event: EVENT_TYPES.orderCancelled,
    by: 'POST /v1/orders/{id}/cancel',
  },
  {
    from: 'approved',
    trigger: 'cancel',
    to: 'cancelled',
    event: EVENT_TYPES.orderCancelled,
    by: 'POST /v1/orders/{id}/cancel',
  },
  {
    from: 'approved',
    trigger: 'start_production',
    to: 'in_production',
    event: EVENT_TYPES.orderInProduction,
    by: 'fulfilment: in_production',
  },
  {
    from: 'in_production',
    trigger: 'ship',
    to: 'shipped',
    event: EVENT_TYPES.orderShipped,
    by: 'fulfilment: shipped',
  },
  {
    from: 'shipped',
    trigger: 'deliver',
    to: 'delivered',
    event: EVENT_TYPES.orderDelivered,
    by: 'fulfilment: delivered',
  },
];

/** The transition `trigger` takes from `from`, or undefined when it is illegal there. */
export function transitionOf(from: OrderStatus, trigger: Trigger): Transition | undefined {
  return TRANSITIONS.find((t) => t.from === from && t.trigger === trigger);
}

/** The statuses a trigger is legal in (e.g. where an order can be cancelled). */
export function statusesAllowing(trigger: Trigger): OrderStatus[] {
  return TRANSITIONS.filter((t) => t.trigger === trigger).map((t) => t.from);
}

/** The fulfilment feed's statuses, as triggers. */
export const FULFILMENT_TRIGGERS = {
  in_production: 'start_production',
  shipped: 'ship',
  delivered: 'deliver',
} as const satisfies Record<string, Trigger>;

/** The state diagram (Mermaid) of the table, as the README shows it. */
export function stateDiagram(): string {
  const lines = [
    'stateDiagram-v2',
    '    [*] --> pending_approval: placed, total above the threshold and a chain applies',
    '    [*] --> approved: placed, otherwise',
    ...TRANSITIONS.map((t) => `    ${t.from} --> ${t.to}: ${t.trigger} (${t.by}) / ${t.event}`),
    '    delivered --> [*]',
    '    cancelled --> [*]',
  ];
  return lines.join('\n');
}
