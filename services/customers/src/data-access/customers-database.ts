// The service's database as the domain uses it: repositories bound to the pool, or to one
// transaction together with the outbox (events and internal messages are written in the
// transaction of the change).
import type { Knex } from 'knex';
import {
  type EventEnvelope,
  USER_ROLES_TOPIC,
  UserRolesChange,
  userRolesChangeKey,
} from '@ordering/contracts';
import { enqueueEvent, enqueueMessage } from '@ordering/messaging';
import { CustomerRepository } from './customer-repository';
import { UserRepository } from './user-repository';

export interface Repositories {
  customers: CustomerRepository;
  users: UserRepository;
}

export interface TransactionScope extends Repositories {
  /** Adds an event to the outbox; it is published after the transaction commits. */
  publish(event: EventEnvelope): Promise<void>;
  /** Adds an internal role-change message (TOPICS.userRoles, never a webhook) to the outbox. */
  announceRoles(change: UserRolesChange): Promise<void>;
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
        announceRoles: (change) =>
          enqueueMessage(trx, {
            topic: USER_ROLES_TOPIC,
            key: userRolesChangeKey(change),
            id: change.id,
            type: change.type,
            value: UserRolesChange.parse(change),
          }),
        trx,
      }),
    );
  }
}
