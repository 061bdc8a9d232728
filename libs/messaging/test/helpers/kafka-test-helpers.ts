// Messaging test helpers: clients of the test broker, unique topics, a recording logger. Reading a
// topic back and waiting for a condition come from @ordering/testing.
import type { Kafka } from 'kafkajs';
import { unique } from '@ordering/testing';
import { createKafka } from '../../src';

export const BROKERS = (process.env.KAFKA_BROKERS ?? '127.0.0.1:29092').split(',');

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

/** A logger that remembers what it was told, for asserting on warnings. */
export function recordingLogger() {
  const entries: { level: string; obj: object; msg: string | undefined }[] = [];
  const at = (level: string) => (obj: object, msg?: string) => {
    entries.push({ level, obj, msg });
  };
  return { entries, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}
