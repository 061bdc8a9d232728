// The project's own Kafka: provisioning is cached and idempotent.
import fs from 'node:fs';
import path from 'node:path';
import { ensureKafkaJars, kafkaAnswers, kafkaCacheDir, startKafkaBroker } from '../local';
import { TEST_KAFKA_CONTROLLER_PORT, TEST_KAFKA_DIR, TEST_KAFKA_PORT } from '@ordering/testing';

describe('Kafka provisioning', () => {
  it('keeps the jars from Maven Central in a cache outside the repository and reuses them', () => {
    const started = Date.now();
    const libs = ensureKafkaJars();
    expect(Date.now() - started).toBeLessThan(1000);
    expect(libs.startsWith(kafkaCacheDir())).toBe(true);
    expect(path.relative(path.resolve(__dirname, '..', '..'), libs).startsWith('..')).toBe(true);
    expect(fs.readdirSync(libs)).toEqual(
      expect.arrayContaining(['kafka_2.13-3.9.1.jar', 'kafka-clients-3.9.1.jar']),
    );
  });

  it('a second start for the same data directory finds the running broker instead of starting another', async () => {
    // The test command (or jest's global setup) started the test broker for this data directory.
    const expected = `127.0.0.1:${TEST_KAFKA_PORT}`;
    const again = await startKafkaBroker({
      port: TEST_KAFKA_PORT,
      controllerPort: TEST_KAFKA_CONTROLLER_PORT,
      dataDir: TEST_KAFKA_DIR,
    });
    expect(again).toMatchObject({ brokers: [expected], started: false });
    expect(await kafkaAnswers(again.brokers)).toBe(true);
  });
});
