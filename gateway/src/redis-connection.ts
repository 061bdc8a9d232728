// The gateway's one Redis connection and what it knows about Redis's health. Redis holds the
// revocation denylist and the shared rate-limit buckets, but the gateway keeps serving when Redis
// is down: commands fail fast (no offline queue, short timeout), callers fall back, one warning is
// logged per outage and readiness reports "degraded" until Redis answers again.
import { Redis } from 'ioredis';
import { redisTlsFromEnv } from '@ordering/config';
import type { Logger } from '@ordering/http';

export interface RedisConnectionOptions {
  url: string;
  commandTimeoutMs: number;
  logger: Logger;
}

export class RedisHealth {
  private degradedReason: string | undefined;
  private degradedSince: number | undefined;

  constructor(private readonly logger: Logger) {}

  /** Why Redis is not used right now, or undefined when it is. */
  get degraded(): string | undefined {
    return this.degradedReason;
  }

  /** A Redis command failed (or Redis is not connected): the first failure of an outage logs. */
  failed(err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    if (this.degradedReason !== undefined) return;
    this.degradedReason = message.slice(0, 160) || 'Redis is unavailable';
    this.degradedSince = Date.now();
    this.logger.warn(
      { err },
      'Redis is unavailable: rate limiting per gateway process, revocations unchecked until it answers',
    );
  }

  /** Redis answered: ends an outage. */
  succeeded(): void {
    if (this.degradedReason === undefined) return;
    const outageMs = Date.now() - (this.degradedSince ?? Date.now());
    this.degradedReason = undefined;
    this.degradedSince = undefined;
    this.logger.info({ outage_ms: outageMs }, 'Redis is available again');
  }
}

export interface RedisConnection {
  redis: Redis;
  health: RedisHealth;
  /** Usable for commands now (connected and not known to be failing). */
  usable(): boolean;
  /** Resolves when connected or when the first attempt failed (then degraded), at most `timeoutMs`. */
  settle(timeoutMs: number): Promise<void>;
  close(): Promise<void>;
}

export function createRedisConnection(options: RedisConnectionOptions): RedisConnection {
  const health = new RedisHealth(options.logger);
  let closing = false;
  const redis = new Redis(options.url, {
    lazyConnect: true,
    // A request must never wait for Redis to come back: fail now, fall back, retry later.
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs,
    connectTimeout: 2000,
    retryStrategy: (times) => Math.min(100 * times, 1000),
    connectionName: 'gateway',
    // Commands of concurrent requests issued in the same tick leave in one write.
    enableAutoPipelining: true,
    // TLS: a rediss:// URL, and REDIS_TLS_CA_FILE for a private CA.
    ...redisTlsFromEnv(),
  });
  redis.on('error', (err: Error) => health.failed(err));
  redis.on('close', () => {
    if (!closing) health.failed(new Error('Redis connection closed'));
  });
  redis.on('ready', () => health.succeeded());

  const firstAttempt = redis.connect().catch((err: unknown) => health.failed(err));

  return {
    redis,
    health,
    usable: () => redis.status === 'ready',
    async settle(timeoutMs) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        firstAttempt,
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, timeoutMs);
        }),
      ]);
      clearTimeout(timer);
    },
    async close() {
      closing = true;
      if (redis.status === 'ready') {
        await redis.quit().catch(() => redis.disconnect());
      } else {
        redis.disconnect();
      }
    },
  };
}
