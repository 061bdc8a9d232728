import type { Topic } from '@ordering/contracts';
import { createKafka } from '@ordering/messaging';

/**
 * Publishes one JSON message to a platform topic, keyed so that one aggregate keeps its order.
 * TLS and SASL as the processes have them (KAFKA_SSL, KAFKA_SSL_CA_FILE, KAFKA_SASL_*): a
 * cluster's brokers refuse a plaintext client without credentials.
 */
export async function publishMessage(
  brokers: string[],
  topic: Topic,
  key: string,
  message: unknown,
): Promise<void> {
  const producer = createKafka({ clientId: 'ops-cli', brokers }).producer({
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
