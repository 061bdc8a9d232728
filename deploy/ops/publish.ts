import { Kafka, logLevel } from 'kafkajs';
import type { Topic } from '@ordering/contracts';

/** Publishes one JSON message to a platform topic, keyed so that one aggregate keeps its order. */
export async function publishMessage(
  brokers: string[],
  topic: Topic,
  key: string,
  message: unknown,
): Promise<void> {
  const producer = new Kafka({ clientId: 'ops-cli', brokers, logLevel: logLevel.NOTHING }).producer({
    idempotent: true,
    maxInFlightRequests: 1,
  });
  await producer.connect();
  try {
    await producer.send({ topic, messages: [{ key, value: JSON.stringify(message) }] });
  } finally {
    await producer.disconnect();
  }
}
