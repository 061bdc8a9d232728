// Publishes committed outbox rows to Kafka, in id order, keyed by aggregate id, then marks them
// published. Wakes on the outbox trigger's NOTIFY, polls as a fallback. One relay per database
// publishes at a time (a transaction-scoped advisory lock around each batch), so order holds with
// several replicas. A Kafka outage makes it back off and catch up; rows left by a crash are still
// unpublished and go out on the next start. At-least-once: a crash between the send and the
// update republishes the batch (consumers are idempotent).
import type { Kafka, Message, Producer } from 'kafkajs';
import type { Knex } from 'knex';
import { eventJson } from '@ordering/contracts';
import {
  ATTR,
  platformMetrics,
  recordError,
  startProducerSpan,
  type ProducerSpan,
} from '@ordering/telemetry';
import { backoffDelay, Waker, type BackoffOptions } from './backoff';
import { observeOutboxLag, type LagGauge } from './lag-gauges';
import { createOrderedProducer } from './create-kafka';
import type { EntryPoint } from './entry-point';
import { silentLogger, type MessagingLogger } from './logger';
import { OUTBOX_CHANNEL, OUTBOX_TABLE } from './outbox-migration';

export interface OutboxRelayOptions {
  knex: Knex;
  kafka: Kafka;
  logger?: MessagingLogger;
  /** Rows per batch (one Kafka request); default 100. */
  batchSize?: number;
  /** Fallback polling when no notification arrives; default 1 s. */
  pollIntervalMs?: number;
  /**
   * After a notification, wait this long before reading the outbox, so that rows committed in the
   * meantime go out in the same batch (one transaction and one Kafka request for many, like a
   * producer's linger); default 0 (read at once).
   */
  lingerMs?: number;
  /** Backoff after a failed batch (Kafka or database down); default 200 ms doubling up to 10 s. */
  backoff?: BackoffOptions;
  /** Published rows older than this are deleted; default 7 days. */
  retentionMs?: number;
  /** How often to purge; default hourly. */
  purgeIntervalMs?: number;
  /** Bound on the final flush of stop(); default 5 s. */
  stopTimeoutMs?: number;
  /** Advisory lock key shared by the relays of one database; default a fixed constant. */
  lockKey?: bigint;
  name?: string;
}

interface OutboxRow {
  id: string;
  topic: string;
  key: string;
  event_id: string;
  event_type: string;
  payload: unknown;
  headers: Record<string, string>;
}

interface BatchResult {
  /** False when another relay held the lock (this one published nothing). */
  gotLock: boolean;
  published: number;
}

/** 'ordering.outbox-relay' folded into a bigint; the same in every service (one database each). */
export const DEFAULT_OUTBOX_LOCK_KEY = 0x6f7574626f78n;

/** The pg Client under knex's pool, as far as LISTEN needs it. */
interface ListenConnection {
  query(sql: string): Promise<unknown>;
  on(event: 'notification', fn: (msg: { channel: string }) => void): void;
  on(event: 'error' | 'end', fn: (err?: Error) => void): void;
  off(event: 'notification', fn: (msg: { channel: string }) => void): void;
  off(event: 'error' | 'end', fn: (err?: Error) => void): void;
}

interface KnexPool {
  acquireConnection(): Promise<ListenConnection>;
  releaseConnection(c: ListenConnection): Promise<void>;
}

export class OutboxRelay implements EntryPoint {
  readonly name: string;
  private readonly knex: Knex;
  private readonly kafka: Kafka;
  private readonly logger: MessagingLogger;
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly lingerMs: number;
  private readonly backoff: BackoffOptions;
  private readonly retentionMs: number;
  private readonly purgeIntervalMs: number;
  private readonly stopTimeoutMs: number;
  private readonly lockKey: bigint;

  private producer: Producer | undefined;
  private producerConnected = false;
  private listener: { connection: ListenConnection; release(): Promise<void> } | undefined;
  private readonly waker = new Waker();
  private loop: Promise<void> | undefined;
  private stopping = false;
  private lastPurge = 0;
  private exclusiveTail: Promise<unknown> = Promise.resolve();
  private lagGauge: LagGauge | undefined;

  constructor(options: OutboxRelayOptions) {
    this.knex = options.knex;
    this.kafka = options.kafka;
    this.logger = options.logger ?? silentLogger;
    this.batchSize = options.batchSize ?? 100;
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.lingerMs = options.lingerMs ?? 0;
    this.backoff = { initialMs: 200, maxMs: 10_000, ...options.backoff };
    this.retentionMs = options.retentionMs ?? 7 * 24 * 3600 * 1000;
    this.purgeIntervalMs = options.purgeIntervalMs ?? 3600 * 1000;
    this.stopTimeoutMs = options.stopTimeoutMs ?? 5000;
    this.lockKey = options.lockKey ?? DEFAULT_OUTBOX_LOCK_KEY;
    this.name = options.name ?? 'outbox-relay';
  }

  /** Starts publishing in the background; does not wait for Kafka (an outage only delays events). */
  async start(): Promise<void> {
    if (this.loop) return;
    this.stopping = false;
    this.lastPurge = Date.now();
    this.lagGauge ??= observeOutboxLag(this.knex);
    await this.listen().catch((err: unknown) =>
      this.logger.warn({ err }, 'outbox relay cannot LISTEN; polling only until it can'),
    );
    this.loop = this.run();
  }

  /**
   * Stops the loop, then publishes what it can within `stopTimeoutMs`, then disconnects (also after
   * flush() alone, without start()).
   */
  async stop(): Promise<void> {
    await this.lagGauge?.remove();
    this.lagGauge = undefined;
    if (this.loop) {
      this.stopping = true;
      this.waker.wake();
      await this.loop;
      this.loop = undefined;
      await this.finalFlush();
    }
    await this.unlisten();
    await this.disconnectProducer();
  }

  private async finalFlush(): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const bound = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.stopTimeoutMs);
    });
    const flushing = this.flush(this.stopTimeoutMs).then(
      () => 'done' as const,
      (err: unknown) => err,
    );
    const result = await Promise.race([flushing, bound]);
    clearTimeout(timer);
    if (result !== 'done') {
      this.logger.warn(
        { err: result === 'timeout' ? undefined : result },
        'outbox relay stopped with rows left unpublished; the next relay to start publishes them',
      );
    }
  }

  /**
   * Publishes every row committed before the call (waiting for another relay that holds the lock
   * to finish). Rejects when Kafka or the database fails, or after `timeoutMs` of waiting for the lock.
   */
  async flush(timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const result = await this.exclusive(() => this.publishBatch());
      if (result.gotLock && result.published < this.batchSize) return;
      if (!result.gotLock) {
        if (Date.now() > deadline) throw new Error('outbox flush: another relay kept the lock too long');
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
  }

  /** Deletes published rows older than the retention period; returns how many. */
  async purge(): Promise<number> {
    const cutoff = this.knex.raw(`now() - (? * interval '1 millisecond')`, [this.retentionMs]);
    let total = 0;
    for (;;) {
      const ids = this.knex(OUTBOX_TABLE)
        .select('id')
        .whereNotNull('published_at')
        .andWhere('published_at', '<', cutoff)
        .limit(10_000);
      const deleted = await this.knex(OUTBOX_TABLE).whereIn('id', ids).delete();
      total += deleted;
      if (deleted < 10_000) return total;
    }
  }

  private async run(): Promise<void> {
    let failures = 0;
    while (!this.stopping) {
      let more: boolean;
      try {
        more = await this.round();
        if (failures > 0) this.logger.info({ failures }, 'outbox relay publishing again');
        failures = 0;
      } catch (err) {
        failures++;
        const delay = backoffDelay(failures, this.backoff);
        this.logger.warn(
          { err, failures, retry_in_ms: delay },
          'outbox relay could not publish; backing off',
        );
        await this.disconnectProducer();
        await this.sleepUnlessStopping(delay);
        continue;
      }
      if (!more && !this.stopping) {
        await this.waker.sleep(this.pollIntervalMs);
        if (this.lingerMs > 0 && !this.stopping) await new Promise((r) => setTimeout(r, this.lingerMs));
      }
    }
  }

  /** One batch (and the purge when due); true when a full batch went out and more may be waiting. */
  private async round(): Promise<boolean> {
    if (!this.listener) await this.listen().catch(() => {});
    const result = await this.exclusive(() => this.publishBatch());
    if (Date.now() - this.lastPurge >= this.purgeIntervalMs) {
      this.lastPurge = Date.now();
      const purged = await this.purge();
      if (purged > 0) this.logger.debug({ purged }, 'outbox relay purged published rows');
    }
    return result.gotLock && result.published === this.batchSize;
  }

  /** A backoff that stop() may cut short, but a notification may not (no hammering a dead broker). */
  private async sleepUnlessStopping(ms: number): Promise<void> {
    const until = Date.now() + ms;
    while (!this.stopping && Date.now() < until) await this.waker.sleep(until - Date.now());
  }

  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.exclusiveTail.then(fn, fn);
    this.exclusiveTail = run.catch(() => {});
    return run;
  }

  private async ensureProducer(): Promise<Producer> {
    this.producer ??= createOrderedProducer(this.kafka);
    if (!this.producerConnected) {
      await this.producer.connect();
      this.producerConnected = true;
    }
    return this.producer;
  }

  private async disconnectProducer(): Promise<void> {
    const producer = this.producer;
    this.producer = undefined;
    this.producerConnected = false;
    await producer?.disconnect().catch(() => {});
  }

  private async publishBatch(): Promise<BatchResult> {
    // Connect first: while Kafka is down, fail without opening a transaction.
    const producer = await this.ensureProducer();
    return this.knex.transaction(async (trx) => {
      const lock = await trx.raw<{ rows: { locked: boolean }[] }>(
        'select pg_try_advisory_xact_lock(?) as locked',
        [this.lockKey.toString()],
      );
      if (!lock.rows[0]?.locked) return { gotLock: false, published: 0 };
      const rows: OutboxRow[] = await trx(OUTBOX_TABLE)
        .select('id', 'topic', 'key', 'event_id', 'event_type', 'payload', 'headers')
        .whereNull('published_at')
        .orderBy('id')
        .limit(this.batchSize);
      if (rows.length === 0) return { gotLock: true, published: 0 };

      const spans: ProducerSpan[] = [];
      const byTopic = new Map<string, Message[]>();
      for (const row of rows) {
        const produced = startProducerSpan(`${row.topic} publish`, row.headers, {
          'messaging.system': 'kafka',
          'messaging.operation.type': 'send',
          'messaging.destination.name': row.topic,
          'messaging.kafka.message.key': row.key,
          'messaging.message.id': row.event_id,
          [ATTR.eventId]: row.event_id,
          [ATTR.eventType]: row.event_type,
        });
        spans.push(produced);
        const messages = byTopic.get(row.topic) ?? [];
        messages.push({
          key: row.key,
          value: eventJson(row.payload),
          headers: { ...row.headers, ...produced.headers },
        });
        byTopic.set(row.topic, messages);
      }
      try {
        await producer.sendBatch({
          acks: -1,
          topicMessages: [...byTopic].map(([topic, messages]) => ({ topic, messages })),
        });
      } catch (err) {
        for (const { span } of spans) recordError(span, err);
        throw err;
      } finally {
        for (const { span } of spans) span.end();
      }
      await trx(OUTBOX_TABLE)
        .whereIn(
          'id',
          rows.map((r) => r.id),
        )
        .update({ published_at: trx.fn.now() });
      platformMetrics().outboxPublished.add(rows.length);
      this.logger.debug({ published: rows.length }, 'outbox relay published');
      return { gotLock: true, published: rows.length };
    });
  }

  private async listen(): Promise<void> {
    if (this.listener) return;
    const pool = this.knex.client as KnexPool;
    const connection = await pool.acquireConnection();
    const onNotification = (msg: { channel: string }) => {
      if (msg.channel === OUTBOX_CHANNEL) this.waker.wake();
    };
    const release = async () => {
      connection.off('notification', onNotification);
      connection.off('error', onLost);
      connection.off('end', onLost);
      await pool.releaseConnection(connection).catch(() => {});
    };
    const onLost = (err?: Error) => {
      if (this.listener?.connection !== connection) return;
      this.logger.warn({ err }, 'outbox relay lost its LISTEN connection; polling until it is back');
      this.listener = undefined;
      void release();
    };
    connection.on('notification', onNotification);
    connection.on('error', onLost);
    connection.on('end', onLost);
    try {
      await connection.query(`listen ${OUTBOX_CHANNEL}`);
    } catch (err) {
      await release();
      throw err;
    }
    this.listener = { connection, release };
  }

  private async unlisten(): Promise<void> {
    const listener = this.listener;
    if (!listener) return;
    this.listener = undefined;
    await listener.connection.query(`unlisten ${OUTBOX_CHANNEL}`).catch(() => {});
    await listener.release();
  }
}
