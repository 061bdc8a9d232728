// The environment every service reads the same way, to spread into its own config schema:
// `z.object({ ...serviceEnv({ name: 'catalog', port: 8102 }), ...outboxEnv, MY_SETTING: ... })`.
import { commonEnv, env } from '@ordering/config';
import { databaseEnv } from '@ordering/db';
import type { ConsumerTuning } from '@ordering/messaging';
import { z } from 'zod';

/** Name, log level, where it listens, its database, the Kafka brokers and the identity secret. */
export function serviceEnv(defaults: { name: string; port: number }) {
  return {
    ...commonEnv,
    SERVICE_NAME: env.string(defaults.name),
    PORT: env.port(defaults.port),
    HOST: env.string('0.0.0.0'),
    ...databaseEnv,
    KAFKA_BROKERS: env.list(),
    /** Verifies the identity header the gateway signs (and signs calls to sibling services). */
    INTERNAL_IDENTITY_SECRET: env.string(),
  };
}

/** A service that publishes through its transactional outbox. */
export const outboxEnv = {
  /** Whether this replica publishes the outbox (at most one relay publishes at a time anyway). */
  OUTBOX_RELAY_ENABLED: env.bool(true),
  /**
   * How long the relay waits after a notification before it reads the outbox, so that rows
   * committed meanwhile share one batch (a transaction and a Kafka request); events reach Kafka
   * that much later. See @ordering/messaging's OutboxRelay `lingerMs`.
   */
  OUTBOX_RELAY_LINGER_MS: env.int(20).pipe(z.number().int().min(0).max(1000)),
};

/** A consumer's fetch defaults (`consumerEnv`). */
export interface FetchDefaults {
  fetchMinBytes: number;
  fetchMaxWaitMs: number;
}

/** Events in batches of about 32 KiB, each at most 250 ms late: the default. */
export const FETCH_BATCHED: FetchDefaults = { fetchMinBytes: 32_768, fetchMaxWaitMs: 250 };

/**
 * Each message as soon as it is there (an idle fetch waits 5 s), for a consumer whose readers
 * expect its effects at once.
 */
export const FETCH_AT_ONCE: FetchDefaults = { fetchMinBytes: 1, fetchMaxWaitMs: 5000 };

/** A service that consumes a Kafka topic in a consumer group. */
export function consumerEnv(defaultGroupId: string, fetch: FetchDefaults = FETCH_BATCHED) {
  return {
    /** Consumer group (one per deployment). */
    KAFKA_GROUP_ID: env.string(defaultGroupId),
    /** Where a new consumer group starts: the oldest retained event (default) or only new ones. */
    KAFKA_FROM_BEGINNING: env.bool(true),
    /**
     * The broker answers a fetch once this many bytes are waiting, or after
     * KAFKA_FETCH_MAX_WAIT_MS: a busy topic's events come in batches of about this size (fewer
     * fetches, transactions and offset commits per event), an idle one's at most that much later.
     */
    KAFKA_FETCH_MIN_BYTES: env.int(fetch.fetchMinBytes).pipe(z.number().int().min(1).max(16_777_216)),
    KAFKA_FETCH_MAX_WAIT_MS: env.int(fetch.fetchMaxWaitMs).pipe(z.number().int().min(10).max(30_000)),
  };
}

/** The fetch settings of `consumerEnv`, as a consumer's options (`createConsumer`). */
export function consumerFetchTuning(config: {
  KAFKA_FETCH_MIN_BYTES: number;
  KAFKA_FETCH_MAX_WAIT_MS: number;
}): Pick<ConsumerTuning, 'fetchMinBytes' | 'maxWaitTimeMs'> {
  return { fetchMinBytes: config.KAFKA_FETCH_MIN_BYTES, maxWaitTimeMs: config.KAFKA_FETCH_MAX_WAIT_MS };
}

/** The settings `assembleService` reads; every service's config has at least these. */
export interface ServiceConfig {
  SERVICE_NAME: string;
  LOG_LEVEL: string;
  PORT: number;
  HOST: string;
  DATABASE_URL: string;
  DATABASE_POOL_MAX: number;
  KAFKA_BROKERS: string[];
  OUTBOX_RELAY_ENABLED?: boolean;
  OUTBOX_RELAY_LINGER_MS?: number;
}
