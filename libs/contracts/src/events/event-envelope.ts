// The event envelope of the spec: what goes on Kafka and, unchanged, into webhook deliveries.
import { newEventId } from '../ids';
import { describeIssues } from '../issue-path';
import { Timestamp } from '../schemas/common-schemas';
import { z } from '../zod';
import { EVENT_DATA_SCHEMAS, type EventDataOf } from './event-data-schemas';
import { ALL_EVENT_TYPES, type EventType } from './event-types';

export const API_VERSION = 'v1' as const;

const envelopeFields = {
  id: z
    .string()
    .min(1)
    .openapi({ description: 'Event identifier (`evt_` + ULID)', example: 'evt_01JD0Z8Q3N4M5P6R7S8T9V0W1X' }),
  object: z.literal('event'),
  created_at: Timestamp,
  cust_id: z.string().min(1).openapi({ description: 'Customer account the event belongs to' }),
  api_version: z.literal(API_VERSION).openapi({ description: 'API version of the payload' }),
};

/** The envelope with any type and any data: what every message on an event topic must be. */
export const EventEnvelopeBase = z
  .looseObject({
    ...envelopeFields,
    type: z.string().min(1),
    data: z.looseObject({}),
  })
  .openapi('EventEnvelopeBase');
export type EventEnvelopeBase = z.infer<typeof EventEnvelopeBase>;

/** `order.approval.requested` -> `OrderApprovalRequestedEvent` (the OpenAPI component name). */
export function eventComponentName(type: EventType): string {
  return `${type
    .split(/[._]/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('')}Event`;
}

function envelopeOf<T extends EventType>(type: T) {
  return z
    .looseObject({
      id: envelopeFields.id,
      object: envelopeFields.object,
      type: z.literal(type),
      created_at: envelopeFields.created_at,
      cust_id: envelopeFields.cust_id,
      api_version: envelopeFields.api_version,
      data: EVENT_DATA_SCHEMAS[type],
    })
    .openapi(eventComponentName(type), { description: `Event \`${type}\`` });
}

/** One envelope schema per event type. */
export const EVENT_SCHEMAS = Object.fromEntries(ALL_EVENT_TYPES.map((t) => [t, envelopeOf(t)])) as {
  [T in EventType]: ReturnType<typeof envelopeOf<T>>;
};

/** Any event of the API, validated by its type. */
export const EventEnvelope = z
  .discriminatedUnion(
    'type',
    ALL_EVENT_TYPES.map((t) => EVENT_SCHEMAS[t]) as unknown as [
      ReturnType<typeof envelopeOf<EventType>>,
      ...ReturnType<typeof envelopeOf<EventType>>[],
    ],
  )
  .openapi('Event', { description: 'An event as sent to webhook endpoints and carried on Kafka' });

export interface EventOf<T extends EventType> {
  id: string;
  object: 'event';
  type: T;
  created_at: string;
  cust_id: string;
  api_version: typeof API_VERSION;
  data: EventDataOf<T>;
}
export type EventEnvelope = { [T in EventType]: EventOf<T> }[EventType];

/** A value that is not a valid event of the API; `message` names each offending path. */
export class EventValidationError extends Error {
  constructor(
    readonly issues: z.ZodError,
    readonly reason: 'invalid_envelope' | 'invalid_data' | 'unknown_type',
  ) {
    super(`Invalid event (${reason}): ${describeIssues(issues)}`);
    this.name = 'EventValidationError';
  }
}

/** Envelopes that parseEvent produced (and nobody is expected to change afterwards). */
const parsedEvents = new WeakSet<object>();

/** True for an envelope parseEvent (or newEvent) returned: validating it again would answer the same. */
export function isParsedEvent(value: unknown): value is EventEnvelope {
  return typeof value === 'object' && value !== null && parsedEvents.has(value);
}

const knownType = (type: unknown): type is EventType =>
  typeof type === 'string' && Object.prototype.hasOwnProperty.call(EVENT_SCHEMAS, type);

/** Validates the envelope, then the data of its type; throws EventValidationError. */
export function parseEvent(value: unknown): EventEnvelope {
  // A valid event of a known type passes its full schema (envelope included) in one pass; the
  // envelope alone is checked first only to say which part of a bad event is wrong.
  const claimed =
    typeof value === 'object' && value !== null ? (value as { type?: unknown }).type : undefined;
  if (knownType(claimed)) {
    const full = EVENT_SCHEMAS[claimed].safeParse(value);
    if (full.success) {
      parsedEvents.add(full.data);
      return full.data as EventEnvelope;
    }
  }
  const base = EventEnvelopeBase.safeParse(value);
  if (!base.success) throw new EventValidationError(base.error, 'invalid_envelope');
  const type = base.data.type;
  if (!(type in EVENT_SCHEMAS)) {
    const issue = z.enum(ALL_EVENT_TYPES).safeParse(type);
    throw new EventValidationError(prefixed(issue.error!, ['type']), 'unknown_type');
  }
  const full = EVENT_SCHEMAS[type as EventType].safeParse(value);
  if (!full.success) throw new EventValidationError(full.error, 'invalid_data');
  parsedEvents.add(full.data);
  return full.data as EventEnvelope;
}

export function safeParseEvent(
  value: unknown,
): { success: true; event: EventEnvelope } | { success: false; error: EventValidationError } {
  try {
    return { success: true, event: parseEvent(value) };
  } catch (err) {
    if (err instanceof EventValidationError) return { success: false, error: err };
    throw err;
  }
}

/** The envelope's fields in the spec's order ("Event envelope"). */
const ENVELOPE_FIELDS = ['id', 'object', 'type', 'created_at', 'cust_id', 'api_version', 'data'] as const;

/**
 * An event as JSON with its fields in the spec's order, whatever order it was stored in (jsonb keeps
 * its own): an event of the API through its schema (envelope and `data` in schema order), any other
 * payload (a `webhook.test` event, an internal message) with the envelope's fields first, the rest
 * as stored. The bytes the relay publishes and the webhooks service signs.
 */
export function eventJson(payload: unknown): string {
  const parsed = safeParseEvent(payload);
  if (parsed.success) return JSON.stringify(parsed.event);
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload))
    return JSON.stringify(payload);
  const record = payload as Record<string, unknown>;
  const ordered: Record<string, unknown> = {};
  for (const field of ENVELOPE_FIELDS) if (field in record) ordered[field] = record[field];
  for (const [key, value] of Object.entries(record)) if (!(key in ordered)) ordered[key] = value;
  return JSON.stringify(ordered);
}

export interface NewEventInput<T extends EventType> {
  type: T;
  cust_id: string;
  data: EventDataOf<T>;
  id?: string;
  created_at?: string | Date;
}

/** Builds a validated event (new `evt_` id and `created_at` now unless given). */
export function newEvent<T extends EventType>(input: NewEventInput<T>): EventOf<T> {
  const createdAt =
    input.created_at instanceof Date
      ? input.created_at.toISOString()
      : (input.created_at ?? new Date().toISOString());
  const event = {
    id: input.id ?? newEventId(),
    object: 'event' as const,
    type: input.type,
    created_at: createdAt,
    cust_id: input.cust_id,
    api_version: API_VERSION,
    data: input.data,
  };
  return parseEvent(event) as EventOf<T>;
}

function prefixed(error: z.ZodError, path: PropertyKey[]): z.ZodError {
  return new z.ZodError(error.issues.map((i) => ({ ...i, path: [...path, ...i.path] })));
}
