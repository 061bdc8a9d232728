// Readiness of Kafka: the broker answers a metadata request within a bound.
import type { Admin, Kafka } from 'kafkajs';

export interface KafkaHealthOptions {
  /** Longest a check may take; default 2 s. */
  timeoutMs?: number;
}

export class KafkaHealth {
  readonly name = 'kafka';
  private admin: Admin | undefined;
  private readonly timeoutMs: number;

  constructor(
    private readonly kafka: Kafka,
    options: KafkaHealthOptions = {},
  ) {
    this.timeoutMs = options.timeoutMs ?? 2000;
  }

  /** Resolves when a broker answers; rejects (after at most `timeoutMs`) when none does. */
  async check(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new Error(`Kafka did not answer within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
    });
    const ask = (async () => {
      this.admin ??= this.kafka.admin({ retry: { retries: 0 } });
      await this.admin.connect();
      const cluster = await this.admin.describeCluster();
      if (cluster.brokers.length === 0) throw new Error('Kafka answered with no broker');
    })();
    try {
      await Promise.race([ask, timeout]);
    } catch (err) {
      // Start over with a new client next time: a half-broken connection must not stick.
      ask.catch(() => {});
      await this.stop();
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  /** Closes the admin connection (if a check opened one). */
  async stop(): Promise<void> {
    const admin = this.admin;
    this.admin = undefined;
    await admin?.disconnect().catch(() => {});
  }
}
