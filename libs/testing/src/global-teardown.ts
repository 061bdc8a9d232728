import { stopTestKafka } from './infrastructure';

export default async function globalTeardown(): Promise<void> {
  if (process.env.ORDERING_TEST_KAFKA_STARTED_BY_JEST === '1') await stopTestKafka();
}
