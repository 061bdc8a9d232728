// The Kafka client of a service: quiet unless given a logger, TLS and SASL as the environment says
// (kafka-security.ts), and producers that keep per-key order.
import {
  Kafka,
  Partitioners,
  logLevel,
  type KafkaConfig,
  type LogEntry,
  type Producer,
  type RetryOptions,
} from 'kafkajs';
import { type KafkaSecurity, kafkaSecurityFromEnv } from './kafka-security';
import type { MessagingLogger } from './logger';

export interface CreateKafkaOptions {
  clientId: string;
  /** `host:port` list, or a function asked at each (re)connection. */
  brokers: string[] | (() => string[] | Promise<string[]>);
  /** kafkajs warnings and errors go here (a pino logger fits); without one kafkajs says nothing. */
  logger?: MessagingLogger;
  /** TCP connect timeout; default 3 s. */
  connectionTimeoutMs?: number;
  /** Per-request timeout; default 30 s. */
  requestTimeoutMs?: number;
  /** kafkajs retries of a request; default 5 tries from 100 ms up to 5 s. */
  retry?: RetryOptions;
  /** TLS and SASL; default from KAFKA_SSL, KAFKA_SSL_CA_FILE and KAFKA_SASL_* of the environment. */
  security?: KafkaSecurity;
  /** A kafkajs message logged is not logged again within this window (counted instead); default 30 s. */
  logRepeatWindowMs?: number;
}

/** Distinct messages remembered at most; past it, those whose window is over are forgotten. */
const MAX_REMEMBERED_MESSAGES = 1000;

/**
 * kafkajs's warnings and errors on the service's logger, each distinct message (by level, kafkajs
 * namespace and text) at most once per window: during a broker outage every connection, retry and
 * consumer restart repeats the same few lines (about 130 per service per 30 s), which buried
 * everything else the service logged. The first line after a window carries `repeated`, the number
 * of identical lines left out since the previous one (the count since the last line is lost when
 * the outage ends: the outage's end is what the consumer and relay log).
 */
function logCreator(logger: MessagingLogger, windowMs: number, now: () => number = Date.now) {
  const last = new Map<string, { at: number; suppressed: number }>();
  return () =>
    ({ namespace, level, log }: LogEntry) => {
      const { message, ...extra } = log;
      const key = `${level}\u0000${namespace}\u0000${message}`;
      const at = now();
      const previous = last.get(key);
      if (previous && at - previous.at < windowMs) {
        previous.suppressed += 1;
        return;
      }
      last.delete(key);
      last.set(key, { at, suppressed: 0 });
      if (last.size > MAX_REMEMBERED_MESSAGES)
        for (const [k, e] of last)
          if (at - e.at >= windowMs || last.size > MAX_REMEMBERED_MESSAGES) last.delete(k);
      const repeated = previous?.suppressed ?? 0;
      const fields = { kafkajs: namespace, ...extra, ...(repeated > 0 ? { repeated } : {}) };
      if (level === logLevel.ERROR) logger.error(fields, message);
      else if (level === logLevel.WARN) logger.warn(fields, message);
      else if (level === logLevel.INFO) logger.info(fields, message);
      else logger.debug(fields, message);
    };
}

/** The kafkajs configuration createKafka builds (exposed for the tests of the settings it reads). */
export function kafkaConfig(options: CreateKafkaOptions): KafkaConfig {
  return {
    clientId: options.clientId,
    brokers: options.brokers,
    ...(options.security ?? kafkaSecurityFromEnv()),
    connectionTimeout: options.connectionTimeoutMs ?? 3000,
    requestTimeout: options.requestTimeoutMs ?? 30_000,
    retry: options.retry ?? { initialRetryTime: 100, maxRetryTime: 5000, retries: 5 },
    ...(options.logger
      ? {
          logLevel: logLevel.WARN,
          logCreator: logCreator(options.logger, options.logRepeatWindowMs ?? 30_000),
        }
      : { logLevel: logLevel.NOTHING }),
  };
}

export function createKafka(options: CreateKafkaOptions): Kafka {
  return new Kafka(kafkaConfig(options));
}

export interface OrderedProducerOptions {
  /** kafkajs retries of one send before it fails; default 2 (callers retry with their own backoff). */
  retries?: number;
}

/**
 * A producer that keeps the order of messages per partition, also across retries: one request in
 * flight per connection and acks from all in-sync replicas. Not kafkajs's idempotent mode: that one
 * retries forever during an outage. A retried send may duplicate a message (at-least-once;
 * consumers are idempotent), never reorder it. Keyed messages go to the partition of their key
 * (murmur2, as the Java client does).
 */
export function createOrderedProducer(kafka: Kafka, options: OrderedProducerOptions = {}): Producer {
  return kafka.producer({
    maxInFlightRequests: 1,
    idempotent: false,
    allowAutoTopicCreation: false,
    createPartitioner: Partitioners.DefaultPartitioner,
    retry: { retries: options.retries ?? 2, initialRetryTime: 100, maxRetryTime: 1000 },
  });
}
