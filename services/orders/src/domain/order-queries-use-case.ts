// Reading and cancelling orders as a caller may (reader.ts): an order the caller may not read is
// 404, like an unknown one, so that nothing reveals another account's orders.
import type { OrderStatus } from '@ordering/contracts';
import { NotFoundError } from '@ordering/errors';
import type { OrdersDatabase } from '../data-access/orders-database';
import type { OrderRepository } from '../data-access/order-repository';
import type { Order } from './order';
import type { Actor, Clock, Directory } from './ports';
import { type Reader, readerOf } from './reader';

export interface ListQuery {
  custId?: string;
  status?: OrderStatus;
  createdAfter?: Date;
  after?: { submittedAt: Date; id: string };
  limit: number;
}

export class OrderQueriesUseCase {
  constructor(private readonly deps: { db: OrdersDatabase; directory: Directory; clock: Clock }) {}

  async get(actor: Actor, id: string): Promise<Order> {
    const reader = await readerOf(actor, this.deps.directory);
    const order = await this.deps.db.orders.find(id);
    if (!order || !(await this.canRead(reader, order, this.deps.db.orders))) throw notFound(id);
    return order;
  }

  async list(actor: Actor, query: ListQuery): Promise<Order[]> {
    const reader = await readerOf(actor, this.deps.directory);
    let custIds: string[];
    if (query.custId !== undefined) {
      if (!(await this.deps.directory.withinReach(reader.custId, query.custId))) {
        throw new NotFoundError(`No such customer: ${query.custId}`, 'cust_id');
      }
      custIds = [query.custId];
    } else {
      custIds = (await this.deps.directory.reach(reader.custId)) ?? [];
    }
    return this.deps.db.orders.list({
      custIds,
      ...(reader.sees === 'own' ? { ownOrQueuedFor: reader.login } : {}),
      ...(query.status ? { status: query.status } : {}),
      ...(query.createdAfter ? { createdAfter: query.createdAfter } : {}),
      ...(query.after ? { after: query.after } : {}),
      limit: query.limit,
    });
  }

  /** Cancels an order the caller may cancel; 409 `order_not_cancellable` outside the allowed statuses. */
  async cancel(actor: Actor, id: string, reason: string | null): Promise<Order> {
    const reader = await readerOf(actor, this.deps.directory);
    const user = await this.deps.directory.user(actor.login);
    return this.deps.db.transaction(async (scope) => {
      const order = await scope.orders.findForUpdate(id);
      if (!order || !(await this.canCancel(reader, order))) throw notFound(id);
      const now = this.deps.clock.now();
      order.cancel({ login: actor.login, name: user?.name ?? actor.login }, reason, now);
      await scope.orders.update(order, now);
      await scope.publish(order.drainEvents());
      return order;
    });
  }

  /**
   * Who reads the whole tree, or the shopper who placed it. An approver reads the orders of their
   * queue but rejects them rather than cancels (nor cancels one it approved): 404 as for any other.
   */
  private async canCancel(reader: Reader, order: Order): Promise<boolean> {
    if (!(await this.deps.directory.withinReach(reader.custId, order.state.cust_id))) return false;
    return reader.sees === 'tree' || order.state.ordered_by.login === reader.login;
  }

  private async canRead(reader: Reader, order: Order, orders: OrderRepository): Promise<boolean> {
    if (!(await this.deps.directory.withinReach(reader.custId, order.state.cust_id))) return false;
    if (reader.sees === 'tree' || order.state.ordered_by.login === reader.login) return true;
    return orders.isQueuedFor(order.id, reader.login);
  }
}

function notFound(id: string): NotFoundError {
  return new NotFoundError(`No such order: ${id}`, 'id');
}
