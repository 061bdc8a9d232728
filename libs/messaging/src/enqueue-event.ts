// Writing an event to the outbox inside the caller's transaction: the event exists if and only if
// the state change that caused it committed. The relay publishes it after commit.
import type { Knex } from 'knex';
import { eventRoute, isParsedEvent, parseEvent, type EventEnvelope } from '@ordering/contracts';
import { injectTraceHeaders } from '@ordering/telemetry';
import { OUTBOX_TABLE } from './outbox-migration';

/** Message headers every published event carries (besides W3C trace context). */
export const EVENT_HEADERS = {
  eventId: 'event-id',
  eventType: 'event-type',
  contentType: 'content-type',
} as const;

export interface OutboxInsert {
  topic: string;
  key: string;
  event_id: string;
  event_type: string;
  payload: string;
  headers: string;
}

function outboxRow(event: EventEnvelope): OutboxInsert {
  // A malformed event is a bug in the caller: refuse it before anything is written (an envelope
  // newEvent built was validated then, and is not validated twice).
  const valid = isParsedEvent(event) ? event : parseEvent(event);
  const { topic, key } = eventRoute(valid);
  const headers = {
    ...injectTraceHeaders(),
    [EVENT_HEADERS.eventId]: valid.id,
    [EVENT_HEADERS.eventType]: valid.type,
    [EVENT_HEADERS.contentType]: 'application/json',
  };
  return {
    topic,
    key,
    event_id: valid.id,
    event_type: valid.type,
    payload: JSON.stringify(valid),
    headers: JSON.stringify(headers),
  };
}

/**
 * Validates the event against the contracts (throws EventValidationError for a bad one), derives
 * its topic and key from its type, and inserts it into the outbox in `trx`, with the trace context
 * active now (so the consumer's span joins the trace of the request that caused the event).
 */
export async function enqueueEvent(trx: Knex.Transaction, event: EventEnvelope): Promise<void> {
  await trx(OUTBOX_TABLE).insert(outboxRow(event));
}

/** Several events in one insert, published in the order given. */
export async function enqueueEvents(trx: Knex.Transaction, events: EventEnvelope[]): Promise<void> {
  if (events.length === 0) return;
  await trx(OUTBOX_TABLE).insert(outboxInsertOf(events));
}

/**
 * The outbox rows of `events` (validated, routed, with the active trace context), for a caller that
 * writes them in the same statement as its state change (`knex(OUTBOX_TABLE).insert(rows)` inside a
 * `with`): one round trip instead of one per table. The statement must be atomic with the change,
 * as a single statement or a transaction is.
 */
export function outboxInsertOf(events: EventEnvelope[]): OutboxInsert[] {
  return events.map(outboxRow);
}

/** A message of a topic that carries no event envelope (fulfilment updates, auth revocations). */
export interface OutboxMessage {
  topic: string;
  /** Kafka key: messages of one key keep their order. */
  key: string;
  /** Unique id of the message (the outbox's `event_id`; consumers dedupe on it). */
  id: string;
  /** Sent as the `event-type` header. */
  type: string;
  /** The message, already validated by its schema; sent as JSON. */
  value: unknown;
}

/**
 * Writes a non-envelope message to the outbox, with the active trace context. With
 * `ignoreDuplicate`, a message whose id is already in the outbox is not written again.
 */
export async function enqueueMessage(
  db: Knex | Knex.Transaction,
  message: OutboxMessage,
  options: { ignoreDuplicate?: boolean } = {},
): Promise<void> {
  const headers = {
    ...injectTraceHeaders(),
    [EVENT_HEADERS.eventId]: message.id,
    [EVENT_HEADERS.eventType]: message.type,
    [EVENT_HEADERS.contentType]: 'application/json',
  };
  const insert = db(OUTBOX_TABLE).insert({
    topic: message.topic,
    key: message.key,
    event_id: message.id,
    event_type: message.type,
    payload: JSON.stringify(message.value),
    headers: JSON.stringify(headers),
  });
  await (options.ignoreDuplicate ? insert.onConflict('event_id').ignore() : insert);
}

/**
 * Many non-envelope messages in one insert per 1,000 (a bulk change), with the active trace
 * context, in the order given.
 */
export async function enqueueMessages(db: Knex | Knex.Transaction, messages: OutboxMessage[]): Promise<void> {
  const trace = injectTraceHeaders();
  for (let i = 0; i < messages.length; i += 1000) {
    await db(OUTBOX_TABLE).insert(
      messages.slice(i, i + 1000).map((message) => ({
        topic: message.topic,
        key: message.key,
        event_id: message.id,
        event_type: message.type,
        payload: JSON.stringify(message.value),
        headers: JSON.stringify({
          ...trace,
          [EVENT_HEADERS.eventId]: message.id,
          [EVENT_HEADERS.eventType]: message.type,
          [EVENT_HEADERS.contentType]: 'application/json',
        }),
      })),
    );
  }
}
