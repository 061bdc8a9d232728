// The real servers tests talk to, and the project's own test Kafka broker.
import { ALL_TOPICS } from '@ordering/contracts';
import {
  DEFAULT_PG_ADMIN_URL,
  DEFAULT_REDIS_URL,
  assertLocalServers,
  localStateDir,
  startKafkaBroker,
  stopKafkaBroker,
} from '@ordering/deploy';

export const TEST_KAFKA_PORT = Number(process.env.TEST_KAFKA_PORT ?? 29092);
export const TEST_KAFKA_CONTROLLER_PORT = Number(process.env.TEST_KAFKA_CONTROLLER_PORT ?? 29093);
export const TEST_KAFKA_DIR = localStateDir('kafka-test');

export const PG_ADMIN_URL = process.env.TEST_DATABASE_ADMIN_URL ?? DEFAULT_PG_ADMIN_URL;
export const REDIS_URL = process.env.TEST_REDIS_URL ?? DEFAULT_REDIS_URL;

/** Fails with a clear message when PostgreSQL or Redis is not reachable. */
export function assertInfrastructure(): Promise<void> {
  return assertLocalServers(PG_ADMIN_URL, REDIS_URL);
}

/** The test broker: reuses KAFKA_BROKERS when the test command already started one. */
export async function startTestKafka(): Promise<{ brokers: string[]; started: boolean }> {
  if (process.env.KAFKA_BROKERS) return { brokers: process.env.KAFKA_BROKERS.split(','), started: false };
  return startKafkaBroker({
    port: TEST_KAFKA_PORT,
    controllerPort: TEST_KAFKA_CONTROLLER_PORT,
    dataDir: TEST_KAFKA_DIR,
    topics: ALL_TOPICS,
    // Each run starts from empty topics: consumers that read from the beginning need not wade
    // through what earlier runs published.
    fresh: true,
  });
}

export function stopTestKafka(): Promise<void> {
  return stopKafkaBroker(TEST_KAFKA_DIR);
}
