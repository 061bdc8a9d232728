// Jest global setup: the real infrastructure every test talks to. PostgreSQL and Redis are the
// machine's servers on 127.0.0.1; Kafka is the project's own test broker (started here unless the
// test command already started it and passed KAFKA_BROKERS).
import { assertInfrastructure, startTestKafka } from './infrastructure';
import { dropStaleTestDatabases } from './test-database';

export default async function globalSetup(): Promise<void> {
  await assertInfrastructure();
  await dropStaleTestDatabases();
  const kafka = await startTestKafka();
  process.env.KAFKA_BROKERS = kafka.brokers.join(',');
  if (kafka.started) process.env.ORDERING_TEST_KAFKA_STARTED_BY_JEST = '1';
}
