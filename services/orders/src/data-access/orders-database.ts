// The service's database as the domain uses it: the order repository bound to the pool, or to one
// transaction together with the outbox (events are written in the transaction of the change).
import type { Knex } from 'knex';
import type { EventEnvelope } from '@ordering/contracts';
import { enqueueEvents, outboxInsertOf } from '@ordering/messaging';
import type { Order } from '../domain/order';
import { OrderRepository } from './order-repository';

export interface TransactionScope {
  orders: OrderRepository;
  /** Adds events to the outbox, in order; they are published after the transaction commits. */
  publish(events: EventEnvelope[]): Promise<void>;
  trx: Knex.Transaction;
}

export class OrdersDatabase {
  readonly orders: OrderRepository;

  constructor(readonly knex: Knex) {
    this.orders = new OrderRepository(knex);
  }

  transaction<T>(work: (scope: TransactionScope) => Promise<T>): Promise<T> {
    return this.knex.transaction((trx) =>
      work({ orders: new OrderRepository(trx), publish: (events) => enqueueEvents(trx, events), trx }),
    );
  }

  /**
   * Stores a new order, its lines and its events in one statement (atomic without a transaction);
   * with `beforeCommit`, in a transaction that runs it too (the idempotency record).
   */
  async insertPlaced(
    order: Order,
    now: Date,
    events: EventEnvelope[],
    beforeCommit?: (scope: TransactionScope) => Promise<void>,
  ): Promise<void> {
    const outbox = outboxInsertOf(events);
    if (!beforeCommit) return this.orders.insert(order, now, outbox);
    await this.transaction(async (scope) => {
      await scope.orders.insert(order, now, outbox);
      await beforeCommit(scope);
    });
  }

  /** Runs `work` in the caller's transaction (a consumer's, which also holds its inbox row). */
  within(trx: Knex.Transaction): TransactionScope {
    return { orders: new OrderRepository(trx), publish: (events) => enqueueEvents(trx, events), trx };
  }
}
