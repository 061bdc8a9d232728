// Kafka in tests: a reader that collects what reaches a topic (read back by an independent
// consumer, as integrators would), and waiting for a condition instead of sleeping.
import { randomBytes } from 'node:crypto';
import { Kafka, logLevel, type IHeaders } from 'kafkajs';

/** A name no other test run uses (consumer groups, topics, keys). */
export function unique(prefix: string): string {
  return `${prefix}-${randomBytes(5).toString('hex')}`;
}

export interface ReadMessage {
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  value: string | null;
  headers: Record<string, string>;
}

export interface TopicReader {
  readonly messages: ReadMessage[];
  /** Resolves with the messages once `predicate` holds for them; rejects after `timeoutMs`. */
  waitFor(predicate: (messages: ReadMessage[]) => boolean, timeoutMs?: number): Promise<ReadMessage[]>;
  stop(): Promise<void>;
}

function headerStrings(headers: IHeaders | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(headers ?? {})) {
    const first = Array.isArray(v) ? v[0] : v;
    if (first !== undefined) out[k] = first.toString();
  }
  return out;
}

/**
 * Collects the messages that reach `topic` from now on (`from: 'now'`: the group's offsets are set
 * to the current ends before it starts, so nothing is missed and nothing old is read) or from the
 * beginning of the topic.
 */
export async function readTopic(
  kafka: Kafka,
  topic: string,
  from: 'now' | 'beginning' = 'now',
): Promise<TopicReader> {
  const groupId = unique('reader');
  let ends: { partition: number; high: string }[] = [];
  if (from === 'now') {
    const admin = kafka.admin();
    await admin.connect();
    try {
      ends = await admin.fetchTopicOffsets(topic);
    } finally {
      await admin.disconnect();
    }
  }
  const messages: ReadMessage[] = [];
  const listeners = new Set<() => void>();
  const consumer = kafka.consumer({
    groupId,
    sessionTimeout: 6000,
    heartbeatInterval: 500,
    maxWaitTimeInMs: 200,
  });
  await consumer.connect();
  await consumer.subscribe({ topics: [topic], fromBeginning: true });
  await consumer.run({
    eachMessage: async ({ partition, message }) => {
      messages.push({
        topic,
        partition,
        offset: message.offset,
        key: message.key?.toString() ?? null,
        value: message.value?.toString() ?? null,
        headers: headerStrings(message.headers),
      });
      for (const l of listeners) l();
    },
  });
  // Seeks registered right after run() are applied at the first fetch, before any message is read.
  for (const { partition, high } of ends) consumer.seek({ topic, partition, offset: high });
  return {
    messages,
    waitFor: (predicate, timeoutMs = 15_000) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate(messages)) return;
          clearTimeout(timer);
          listeners.delete(check);
          resolve(messages);
        };
        const timer = setTimeout(() => {
          listeners.delete(check);
          reject(
            new Error(`timed out after ${timeoutMs} ms; ${messages.length} messages read from ${topic}`),
          );
        }, timeoutMs);
        listeners.add(check);
        check();
      }),
    stop: () => consumer.disconnect(),
  };
}

/** Polls `condition` until it holds (for state outside Kafka, e.g. a database row). */
export async function waitUntil(
  condition: () => Promise<boolean> | boolean,
  timeoutMs = 15_000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** A kafkajs client of the test broker (KAFKA_BROKERS, set by the test command or global setup). */
export function testKafkaClient(clientId = unique('test-client')): Kafka {
  const brokers = (process.env.KAFKA_BROKERS ?? '127.0.0.1:29092').split(',');
  return new Kafka({ clientId, brokers, logLevel: logLevel.NOTHING });
}

export interface EventReader<E> {
  /** The matching events read so far, in the order they arrived. */
  readonly events: E[];
  /** Resolves with the matching events once `done` holds for them; rejects after `timeoutMs`. */
  waitFor(done: (events: E[]) => boolean, timeoutMs?: number): Promise<E[]>;
  stop(): Promise<void>;
}

/** Like readTopic, for topics of JSON events: the parsed events that `match` accepts. */
export async function readEvents<E = { id: string; type: string; cust_id: string; data: unknown }>(
  topic: string,
  match: (event: E) => boolean,
  kafka: Kafka = testKafkaClient(),
): Promise<EventReader<E>> {
  const reader = await readTopic(kafka, topic);
  const matching = (): E[] =>
    reader.messages.flatMap((m) => {
      try {
        const event = JSON.parse(m.value ?? 'null') as E | null;
        return event !== null && match(event) ? [event] : [];
      } catch {
        return [];
      }
    });
  return {
    get events() {
      return matching();
    },
    waitFor: async (done, timeoutMs = 20_000) => {
      await reader.waitFor(() => done(matching()), timeoutMs);
      return matching();
    },
    stop: () => reader.stop(),
  };
}
