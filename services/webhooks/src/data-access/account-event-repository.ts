// account_events rows <-> recorded events.
import type { Knex } from 'knex';
import type { EventEnvelope } from '@ordering/contracts';

export interface RecordedEvent {
  event: EventEnvelope;
  traceId: string | null;
  receivedAt: string;
}

interface AccountEventRow {
  event_id: string;
  payload: EventEnvelope;
  trace_id: string | null;
  received_at: Date;
}

export class AccountEventRepository {
  constructor(private readonly knex: Knex) {}

  /**
   * The insert of events, as a statement not yet run (to run inside another one). The consumer's
   * inbox makes a redelivery skip this; the primary key is the second guard (a duplicate that got
   * this far fails loudly instead of being recorded twice).
   */
  insertQuery(
    trx: Knex.Transaction,
    events: { event: EventEnvelope; traceId: string | null }[],
  ): Knex.QueryBuilder {
    return trx('account_events').insert(
      events.map(({ event, traceId }) => ({
        event_id: event.id,
        type: event.type,
        cust_id: event.cust_id,
        created_at: event.created_at,
        payload: JSON.stringify(event),
        trace_id: traceId,
      })),
    );
  }

  async find(eventId: string): Promise<RecordedEvent | undefined> {
    const row = await this.knex<AccountEventRow>('account_events').where({ event_id: eventId }).first();
    return row && { event: row.payload, traceId: row.trace_id, receivedAt: row.received_at.toISOString() };
  }
}
