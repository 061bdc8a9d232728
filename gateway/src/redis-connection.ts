// The gateway's one Redis connection and what it knows about Redis's health. Redis holds the
// revocation denylist and the shared rate-limit buckets, but the gateway keeps serving when Redis
// is down: commands fail fast (no offline queue, short timeout), callers fall back, one warning is
// logged per outage and readiness reports "degraded" until Redis answers again.
import { Redis } from 'ioredis';
import { redisTlsFromEnv } from '@ordering/config';
import type { Logger } from '@ordering/http';
import { RedisHealth } from '@ordering/rate-limit';

export interface RedisConnectionOptions {
  url: string;
  commandTimeoutMs: number;
  logger: Logger;
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
  const health = new RedisHealth(
    options.logger,
    'rate limiting per gateway process, revocations unchecked until it answers',
  );
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
