// The dead-letter topic: a message a consumer gave up on, with headers saying where it came from
// and why. The original key, value and headers are kept, so it can be inspected and replayed.
import type { IHeaders, KafkaMessage } from 'kafkajs';

export const DEAD_LETTER_HEADERS = {
  topic: 'dlq-original-topic',
  partition: 'dlq-original-partition',
  offset: 'dlq-original-offset',
  consumerGroup: 'dlq-consumer-group',
  reason: 'dlq-reason',
  error: 'dlq-error',
  failedAt: 'dlq-failed-at',
} as const;

/** Why a message was dead-lettered. */
export type DeadLetterReason =
  /** The value is not JSON (or is empty). */
  | 'invalid_json'
  /** Not an event envelope of the contracts (missing id/type/cust_id/...). */
  | 'invalid_envelope'
  /** An envelope whose data does not match its type. */
  | 'invalid_data'
  /** A message on a non-envelope topic that its schema refuses. */
  | 'invalid_message'
  /** The handler threw a PermanentError. */
  | 'permanent_error'
  /** The handler kept failing until the attempts ran out. */
  | 'retries_exhausted';

export interface DeadLetter {
  topic: string;
  partition: number;
  offset: string;
  consumerGroup: string;
  reason: DeadLetterReason;
  error: string;
  failedAt: string;
}

export function deadLetterMessage(original: KafkaMessage, letter: DeadLetter) {
  const headers: IHeaders = {
    ...original.headers,
    [DEAD_LETTER_HEADERS.topic]: letter.topic,
    [DEAD_LETTER_HEADERS.partition]: String(letter.partition),
    [DEAD_LETTER_HEADERS.offset]: letter.offset,
    [DEAD_LETTER_HEADERS.consumerGroup]: letter.consumerGroup,
    [DEAD_LETTER_HEADERS.reason]: letter.reason,
    [DEAD_LETTER_HEADERS.error]: letter.error.slice(0, 2000),
    [DEAD_LETTER_HEADERS.failedAt]: letter.failedAt,
  };
  return { key: original.key, value: original.value, headers };
}

/** The dead-letter headers of a message read from the dead-letter topic (undefined if absent). */
export function readDeadLetter(headers: IHeaders | undefined): DeadLetter | undefined {
  const get = (name: string) => {
    const v = headers?.[name];
    const first = Array.isArray(v) ? v[0] : v;
    return first?.toString();
  };
  const topic = get(DEAD_LETTER_HEADERS.topic);
  if (topic === undefined) return undefined;
  return {
    topic,
    partition: Number(get(DEAD_LETTER_HEADERS.partition)),
    offset: get(DEAD_LETTER_HEADERS.offset) ?? '',
    consumerGroup: get(DEAD_LETTER_HEADERS.consumerGroup) ?? '',
    reason: (get(DEAD_LETTER_HEADERS.reason) ?? '') as DeadLetterReason,
    error: get(DEAD_LETTER_HEADERS.error) ?? '',
    failedAt: get(DEAD_LETTER_HEADERS.failedAt) ?? '',
  };
}
