// What other systems change in an order, applied by the aggregate inside the consumer's
// transaction (which also records the message as processed): approval outcomes from the approvals
// service and fulfilment updates from the ERP/warehouse.
import type { ApprovalOutcome, FulfilmentUpdate } from '@ordering/contracts';
import { PermanentError } from '@ordering/messaging';
import type { TransactionScope } from '../data-access/orders-database';
import { IllegalTransitionError, type Order } from './order';
import { FULFILMENT_TRIGGERS } from './order-transitions';
import type { Clock } from './ports';

export type Skipped = { applied: false; reason: string };
export type Applied = { applied: true };

export class OrderFeedUseCase {
  constructor(private readonly clock: Clock) {}

  /**
   * An approval step opened (the order enters that approver's queue: `order.approval.requested`),
   * the chain approved (`order.approved`) or an approver rejected (`order.rejected`). An outcome that
   * arrives after the order left `pending_approval` (it was cancelled meanwhile) changes nothing.
   */
  async applyApprovalOutcome(scope: TransactionScope, outcome: ApprovalOutcome): Promise<Applied | Skipped> {
    const order = await this.load(scope, outcome.order_id);
    const now = this.clock.now();
    if (outcome.type === 'approval.step_opened') {
      await scope.orders.addApprover(order.id, outcome.approval.approver);
      if (order.status !== 'pending_approval') return skipped(order);
      order.approvalRequested(outcome.approval, now);
    } else if (outcome.type === 'approval.chain_approved') {
      if (!order.allows('approve')) return skipped(order);
      order.approve(now);
    } else {
      if (!order.allows('reject')) return skipped(order);
      order.reject(outcome.rejection, now);
    }
    await scope.orders.update(order, now);
    await scope.publish(order.drainEvents());
    return { applied: true };
  }

  /**
   * A fulfilment update: applied when the table allows it; a repeat of the status the order is
   * already in changes nothing; anything else is illegal (PermanentError: dead-lettered with the reason).
   */
  async applyFulfilment(scope: TransactionScope, update: FulfilmentUpdate): Promise<Applied | Skipped> {
    const order = await this.load(scope, update.order_id);
    if (order.status === update.status) return skipped(order);
    const now = this.clock.now();
    try {
      if (update.status === 'in_production') order.startProduction(now);
      else if (update.status === 'shipped') order.ship(update.shipment, now);
      else order.deliver(now);
    } catch (err) {
      if (err instanceof IllegalTransitionError) {
        throw new PermanentError(
          `illegal transition: order ${order.id} is ${order.status}; ${update.status} (${FULFILMENT_TRIGGERS[update.status]}) is not allowed from there`,
        );
      }
      throw err;
    }
    await scope.orders.update(order, now);
    await scope.publish(order.drainEvents());
    return { applied: true };
  }

  private async load(scope: TransactionScope, orderId: string): Promise<Order> {
    const order = await scope.orders.findForUpdate(orderId);
    if (!order) throw new PermanentError(`unknown order ${orderId}`);
    return order;
  }
}

const skipped = (order: Order): Skipped => ({ applied: false, reason: `order is ${order.status}` });
