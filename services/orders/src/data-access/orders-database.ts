// The service's database as the domain uses it: the order repository bound to the pool, or to one
// transaction together with the outbox (events are written in the transaction of the change).
import type { Knex } from 'knex';
import type { EventEnvelope } from '@ordering/contracts';
import { enqueueEvents } from '@ordering/messaging';
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

  /** Runs `work` in the caller's transaction (a consumer's, which also holds its inbox row). */
  within(trx: Knex.Transaction): TransactionScope {
    return { orders: new OrderRepository(trx), publish: (events) => enqueueEvents(trx, events), trx };
  }
}
