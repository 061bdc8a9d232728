// Every domain event of an account is recorded once, in the consumer's transaction, so that webhook
// deliveries can be fanned out from it to the account's (and its ancestors') subscriptions.
import type { Knex } from 'knex';
import type { EventEnvelope } from '@ordering/contracts';
import type { AccountEventRepository } from '../data-access/account-event-repository';

export function recordEventUseCase(events: AccountEventRepository) {
  return async (trx: Knex.Transaction, event: EventEnvelope, traceId: string | null): Promise<void> => {
    await events.insert(trx, event, traceId);
  };
}
