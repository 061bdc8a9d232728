import { KafkaHealth } from '../src';
import { testKafka } from './helpers/kafka-test-helpers';

describe('KafkaHealth', () => {
  it('is ready when the broker answers', async () => {
    const health = new KafkaHealth(testKafka());
    try {
      expect(health.name).toBe('kafka');
      await expect(health.check()).resolves.toBeUndefined();
      await expect(health.check()).resolves.toBeUndefined();
    } finally {
      await health.stop();
    }
  });

  it('is not ready, within its bound, when no broker answers', async () => {
    const health = new KafkaHealth(testKafka(['127.0.0.1:1']), { timeoutMs: 1500 });
    const started = Date.now();
    await expect(health.check()).rejects.toThrow();
    expect(Date.now() - started).toBeLessThan(2500);
    await health.stop();
  });
});
