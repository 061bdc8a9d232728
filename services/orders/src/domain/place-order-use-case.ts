// Placing an order: quote it (reach, address, prices, totals), decide its first status (approval
// needed when the total is above the account's threshold and a chain applies), then store the
// order, its lines and its events (order.submitted, then order.approved when no approval is
// needed) in one statement, atomic (in one transaction with the idempotency record when there is
// one). Nothing is written when any service it asks is down.
import type { CreateOrderRequest } from '@ordering/contracts';
import type { OrdersDatabase, TransactionScope } from '../data-access/orders-database';
import { Order } from './order';
import type { Actor, ApprovalChains, Clock, Directory, Pricing } from './ports';
import { quoteOrder } from './quote-order';

export interface PlaceHooks {
  /** Runs inside the creating transaction after the order and its events are written. */
  beforeCommit?: (scope: TransactionScope, order: Order) => Promise<void>;
}

export class PlaceOrderUseCase {
  constructor(
    private readonly deps: {
      db: OrdersDatabase;
      directory: Directory;
      pricing: Pricing;
      chains: ApprovalChains;
      clock: Clock;
    },
  ) {}

  async place(actor: Actor, draft: CreateOrderRequest, hooks: PlaceHooks = {}): Promise<Order> {
    const quote = await quoteOrder(this.deps, actor, draft);
    const needsApproval = quote.aboveThreshold && (await this.deps.chains.stepsFor(quote.cust_id)).length > 0;
    const order = Order.place(
      {
        cust_id: quote.cust_id,
        ordered_by: quote.ordered_by,
        currency: quote.currency,
        shipping_address: quote.shipping_address,
        cost_center: draft.cost_center ?? null,
        po_number: draft.po_number ?? null,
        items: quote.lines.map((l) => ({
          item_code: l.item_code,
          description: l.description,
          quantity: l.quantity,
          unit_price: l.unit_price.amount,
          line_total: l.line_total.amount,
        })),
        subtotal: quote.subtotal,
        tax: quote.tax,
        shipping: quote.shipping,
        total: quote.total,
        needsApproval,
      },
      this.deps.clock.now(),
    );
    const beforeCommit = hooks.beforeCommit;
    await this.deps.db.insertPlaced(
      order,
      this.deps.clock.now(),
      order.drainEvents(),
      beforeCommit && ((scope) => beforeCommit(scope, order)),
    );
    return order;
  }
}
