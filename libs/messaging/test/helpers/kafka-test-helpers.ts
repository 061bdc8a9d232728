// Test helpers: the test broker, unique topics, and a reader that collects what reaches a topic.
import { randomBytes } from 'node:crypto';
import type { IHeaders, Kafka } from 'kafkajs';
import { createKafka } from '../../src';

export const BROKERS = (process.env.KAFKA_BROKERS ?? '127.0.0.1:29092').split(',');

export function unique(prefix: string): string {
  return `${prefix}-${randomBytes(5).toString('hex')}`;
}

export function testKafka(brokers: string[] | (() => string[]) = BROKERS): Kafka {
  return createKafka({ clientId: unique('messaging-test'), brokers });
}

export async function createTopic(kafka: Kafka, partitions = 1): Promise<string> {
  const topic = unique('test.messaging');
  const admin = kafka.admin();
  await admin.connect();
  try {
    await admin.createTopics({ topics: [{ topic, numPartitions: partitions }], waitForLeaders: true });
  } finally {
    await admin.disconnect();
  }
  return topic;
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

/** A logger that remembers what it was told, for asserting on warnings. */
export function recordingLogger() {
  const entries: { level: string; obj: object; msg: string | undefined }[] = [];
  const at = (level: string) => (obj: object, msg?: string) => {
    entries.push({ level, obj, msg });
  };
  return { entries, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
