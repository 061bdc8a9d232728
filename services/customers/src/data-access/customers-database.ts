// The service's database as the domain uses it: repositories bound to the pool, or to one
// transaction together with the outbox (events are written in the transaction of the change).
import type { Knex } from 'knex';
import type { EventEnvelope } from '@ordering/contracts';
import { enqueueEvent } from '@ordering/messaging';
import { CustomerRepository } from './customer-repository';
import { UserRepository } from './user-repository';

export interface Repositories {
  customers: CustomerRepository;
  users: UserRepository;
}

export interface TransactionScope extends Repositories {
  /** Adds an event to the outbox; it is published after the transaction commits. */
  publish(event: EventEnvelope): Promise<void>;
  /** The transaction itself, for modules that store their own rows with the change (idempotency keys). */
  trx: Knex.Transaction;
}

export class CustomersDatabase implements Repositories {
  readonly customers: CustomerRepository;
  readonly users: UserRepository;

  constructor(readonly knex: Knex) {
    this.customers = new CustomerRepository(knex);
    this.users = new UserRepository(knex);
  }

  transaction<T>(work: (scope: TransactionScope) => Promise<T>): Promise<T> {
    return this.knex.transaction((trx) =>
      work({
        customers: new CustomerRepository(trx),
        users: new UserRepository(trx),
        publish: (event) => enqueueEvent(trx, event),
        trx,
      }),
    );
  }
}
