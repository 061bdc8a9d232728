// The order aggregate: its state, the REST shape it shows, and every change of status, each taken
// only when the transition table (order-transitions.ts) allows it. A change records the event it
// fires; the use case writes the order and its events in one transaction.
import {
  EVENT_TYPES,
  type EventEnvelope,
  type EventType,
  type Order as OrderResource,
  type OrderStatus,
  type Shipment,
  type UserRef,
  newEvent,
  newId,
} from '@ordering/contracts';
import { ConflictError } from '@ordering/errors';
import type { Totals } from './money';
import { type Trigger, statusesAllowing, transitionOf } from './order-transitions';

export interface OrderLine {
  id: string;
  item_code: string;
  description: string;
  quantity: number;
  unit_price: number;
  line_total: number;
}

export interface ShippingAddressCopy {
  [key: string]: unknown;
  attention: string;
  street_1: string;
  /** Absent on orders placed before it was copied. */
  street_2?: string | null;
  city: string;
  region: string;
  postal_code: string;
  country: string;
}

export interface Rejection {
  [key: string]: unknown;
  reason: string;
  rejected_by: UserRef;
  rejected_at: string;
}

export interface Cancellation {
  [key: string]: unknown;
  cancelled_by: UserRef;
  reason: string | null;
}

export interface OrderState extends Totals {
  id: string;
  cust_id: string;
  ordered_by: UserRef;
  status: OrderStatus;
  currency: string;
  shipping_address: ShippingAddressCopy;
  cost_center: string | null;
  po_number: string | null;
  items: OrderLine[];
  submitted_at: Date;
  approved_at: Date | null;
  in_production_at: Date | null;
  delivered_at: Date | null;
  cancelled_at: Date | null;
  cancellation: Cancellation | null;
  rejection: Rejection | null;
  shipment: Shipment | null;
}

/** A trigger pulled in a status where the table has no transition for it. */
export class IllegalTransitionError extends Error {
  constructor(
    readonly from: OrderStatus,
    readonly trigger: Trigger,
  ) {
    super(`An order in status ${from} cannot ${trigger.replace('_', ' ')}`);
    this.name = 'IllegalTransitionError';
  }
}

export interface NewOrder extends Totals {
  cust_id: string;
  ordered_by: UserRef;
  currency: string;
  shipping_address: ShippingAddressCopy;
  cost_center: string | null;
  po_number: string | null;
  items: Omit<OrderLine, 'id'>[];
  needsApproval: boolean;
}

export class Order {
  private readonly pending: EventEnvelope[] = [];

  constructor(readonly state: OrderState) {}

  /** A new order: `pending_approval` when it needs approval, else `approved` at once (decisions.md). */
  static place(input: NewOrder, now: Date): Order {
    const { needsApproval, items, ...rest } = input;
    const order = new Order({
      ...rest,
      id: newId('ord', now.getTime()),
      status: needsApproval ? 'pending_approval' : 'approved',
      items: items.map((l) => ({ ...l, id: newId('oi', now.getTime()) })),
      submitted_at: now,
      approved_at: needsApproval ? null : now,
      in_production_at: null,
      delivered_at: null,
      cancelled_at: null,
      cancellation: null,
      rejection: null,
      shipment: null,
    });
    order.record(EVENT_TYPES.orderSubmitted, now);
    if (!needsApproval) order.record(EVENT_TYPES.orderApproved, now);
    return order;
  }

  get id(): string {
    return this.state.id;
  }

  get status(): OrderStatus {
    return this.state.status;
  }

  /** Whether `trigger` is legal now. */
  allows(trigger: Trigger): boolean {
    return transitionOf(this.state.status, trigger) !== undefined;
  }

  /** 409 `order_not_cancellable` outside the statuses the table allows cancelling in. */
  cancel(by: UserRef, reason: string | null, now: Date): void {
    if (!this.allows('cancel')) {
      throw new ConflictError(
        'order_not_cancellable',
        `This order is ${this.state.status}; only orders in ${statusesAllowing('cancel').join(' or ')} can be cancelled`,
      );
    }
    this.take('cancel', now, () => {
      this.state.cancelled_at = now;
      this.state.cancellation = { cancelled_by: by, reason };
    });
  }

  approve(now: Date): void {
    this.take('approve', now, () => {
      this.state.approved_at = now;
    });
  }

  /** A rejection cancels the order; its reason is the cancellation's (decisions.md "Orders"). */
  reject(rejection: Rejection, now: Date): void {
    this.take('reject', now, () => {
      this.state.cancelled_at = now;
      this.state.rejection = rejection;
      this.state.cancellation = { cancelled_by: rejection.rejected_by, reason: rejection.reason };
    });
  }

  startProduction(now: Date): void {
    this.take('start_production', now, () => {
      this.state.in_production_at = now;
    });
  }

  ship(shipment: Shipment, now: Date): void {
    this.take('ship', now, () => {
      this.state.shipment = shipment;
    });
  }

  deliver(now: Date): void {
    this.take('deliver', now, () => {
      this.state.delivered_at = now;
    });
  }

  /** Records `order.approval.requested` for an approval step the order entered. */
  approvalRequested(approval: { id: string; approver: string; step: number }, now: Date): void {
    this.pending.push(
      newEvent({
        type: EVENT_TYPES.orderApprovalRequested,
        cust_id: this.state.cust_id,
        created_at: now,
        data: { ...this.toResource(), approval },
      }),
    );
  }

  /** The events recorded since the order was loaded, in order; the caller writes them to the outbox. */
  drainEvents(): EventEnvelope[] {
    return this.pending.splice(0);
  }

  toResource(): OrderResource {
    const s = this.state;
    const money = (amount: number) => ({ amount, currency: s.currency });
    return {
      id: s.id,
      object: 'order',
      cust_id: s.cust_id,
      ordered_by: s.ordered_by,
      status: s.status,
      submitted_at: s.submitted_at.toISOString(),
      approved_at: s.approved_at?.toISOString() ?? null,
      shipping_address: s.shipping_address,
      cost_center: s.cost_center,
      po_number: s.po_number,
      items: s.items.map((l) => ({
        id: l.id,
        item_code: l.item_code,
        description: l.description,
        quantity: l.quantity,
        unit_price: money(l.unit_price),
        line_total: money(l.line_total),
      })),
      subtotal: money(s.subtotal),
      tax: money(s.tax),
      shipping: money(s.shipping),
      total: money(s.total),
      cancelled_at: s.cancelled_at?.toISOString() ?? null,
      cancellation: s.cancellation,
      shipment: s.shipment,
    };
  }

  private take(trigger: Trigger, now: Date, change: () => void): void {
    const transition = transitionOf(this.state.status, trigger);
    if (!transition) throw new IllegalTransitionError(this.state.status, trigger);
    this.state.status = transition.to;
    change();
    this.record(transition.event, now);
  }

  private record(type: EventType, now: Date): void {
    const s = this.state;
    const data: Record<string, unknown> = { ...this.toResource() };
    if (type === EVENT_TYPES.orderRejected) data.rejection = s.rejection;
    this.pending.push(
      newEvent({ type, cust_id: s.cust_id, created_at: now, data } as never) as EventEnvelope,
    );
  }
}
