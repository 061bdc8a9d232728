// The real servers tests talk to, and the project's own test Kafka broker.
import net from 'node:net';
import { ALL_TOPICS } from '@ordering/contracts';
import { localStateDir, startKafkaBroker, stopKafkaBroker } from '@ordering/deploy';

export const TEST_KAFKA_PORT = Number(process.env.TEST_KAFKA_PORT ?? 29092);
export const TEST_KAFKA_CONTROLLER_PORT = Number(process.env.TEST_KAFKA_CONTROLLER_PORT ?? 29093);
export const TEST_KAFKA_DIR = localStateDir('kafka-test');

export const PG_URL = process.env.TEST_DATABASE_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

function reachable(host: string, port: number, timeoutMs = 2000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Fails with a clear message when PostgreSQL or Redis is not reachable. */
export async function assertInfrastructure(): Promise<void> {
  const pg = new URL(PG_URL);
  const redis = new URL(REDIS_URL);
  const missing: string[] = [];
  if (!(await reachable(pg.hostname, Number(pg.port || 5432)))) {
    missing.push(`PostgreSQL is not reachable at ${pg.host} (start it: pg_ctlcluster <version> main start)`);
  }
  if (!(await reachable(redis.hostname, Number(redis.port || 6379)))) {
    missing.push(`Redis is not reachable at ${redis.host} (start it: redis-server --daemonize yes ...)`);
  }
  if (missing.length > 0) throw new Error(`Tests need real infrastructure:\n  ${missing.join('\n  ')}`);
}

export async function startTestKafka() {
  if (process.env.KAFKA_BROKERS) return { brokers: process.env.KAFKA_BROKERS.split(','), started: false };
  return startKafkaBroker({
    port: TEST_KAFKA_PORT,
    controllerPort: TEST_KAFKA_CONTROLLER_PORT,
    dataDir: TEST_KAFKA_DIR,
    topics: ALL_TOPICS,
  });
}

export function stopTestKafka(): Promise<void> {
  return stopKafkaBroker(TEST_KAFKA_DIR);
}
