// The service's database as the domain uses it: the repository bound to the pool, or to one
// transaction together with the outbox (messages to the orders service are written with the change).
import type { Knex } from 'knex';
import { ApprovalOutcome, TOPICS } from '@ordering/contracts';
import { enqueueMessage } from '@ordering/messaging';
import { ApprovalsRepository } from './approvals-repository';

export interface TransactionScope {
  approvals: ApprovalsRepository;
  /** Adds an approval outcome for the orders service to the outbox (keyed by order id). */
  send(outcome: ApprovalOutcome): Promise<void>;
  trx: Knex.Transaction;
}

export class ApprovalsDatabase {
  readonly approvals: ApprovalsRepository;

  constructor(readonly knex: Knex) {
    this.approvals = new ApprovalsRepository(knex);
  }

  transaction<T>(work: (scope: TransactionScope) => Promise<T>): Promise<T> {
    return this.knex.transaction((trx) => work(this.within(trx)));
  }

  within(trx: Knex.Transaction): TransactionScope {
    return {
      approvals: new ApprovalsRepository(trx),
      send: (outcome) =>
        enqueueMessage(trx, {
          topic: TOPICS.approvals,
          key: outcome.order_id,
          id: outcome.id,
          type: outcome.type,
          value: ApprovalOutcome.parse(outcome),
        }),
      trx,
    };
  }
}
