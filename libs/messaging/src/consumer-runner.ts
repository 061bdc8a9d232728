// Runs a Kafka consumer group as an entry point. For each message: parse JSON, validate it with
// the contracts, then apply the handler inside a database transaction together with an inbox row
// (consumer, event id), so a redelivered message is applied once. The messages of one fetched
// batch of a partition are applied in ONE transaction (one inbox insert, one commit), in offset
// order; when a handler fails, that transaction rolls back and the messages up to the failing one
// are applied one by one, each in its own transaction, as if they had come alone. Offsets are
// committed only after the effect (or the dead-letter copy) is committed. A message that can
// never succeed goes to the dead-letter topic and the partition moves on; a transient failure is
// retried with backoff, and a failure of the infrastructure (database down) is retried until it
// recovers.
import type { Consumer, EachBatchPayload, IHeaders, Kafka, KafkaMessage, Producer } from 'kafkajs';
import type { Knex } from 'knex';
import {
  EventEnvelopeBase,
  TOPICS,
  describeIssues,
  parseEvent,
  EventValidationError,
  type EventOf,
  type EventType,
  type z,
} from '@ordering/contracts';
import type { Attributes, Span } from '@opentelemetry/api';
import { isTransientInfrastructureError } from '@ordering/errors';
import { ATTR, platformMetrics, withConsumerSpan } from '@ordering/telemetry';
import { backoffDelay, Waker, type BackoffOptions } from './backoff';
import { createOrderedProducer } from './create-kafka';
import { deadLetterMessage, type DeadLetterReason } from './dead-letter';
import type { EntryPoint } from './entry-point';
import { INBOX_TABLE, purgeProcessedEvents } from './inbox-migration';
import { observeConsumerLag, type LagGauge } from './lag-gauges';
import { silentLogger, type MessagingLogger } from './logger';
import { PermanentError } from './permanent-error';

export interface ConsumerContext {
  /** The transaction the inbox row is written in: write the effect through it. */
  trx: Knex.Transaction;
  headers: IHeaders;
  topic: string;
  partition: number;
  offset: string;
  key: string | null;
  /**
   * Runs `work` in this transaction after the last handler of it, before the commit (once per
   * call): a handler may gather what the messages of one transaction write and write it in one
   * statement. A failure there fails the whole transaction; its messages are then applied one by
   * one, each with its own retries and dead letter, as when a handler fails.
   */
  beforeCommit(work: () => Promise<void>): void;
}

export type EventHandler<E> = (event: E, ctx: ConsumerContext) => Promise<void>;

/** Handlers of envelope events by type; events of other types are skipped (not validated). */
export type EventHandlers = { [T in EventType]?: EventHandler<EventOf<T>> };

/** Predicates by event type: false skips the event (see `ConsumerOptions.filters`). */
export type EventFilters = { [T in EventType]?: (event: EventOf<T>) => boolean };

/** A handler of a topic whose messages are not event envelopes (fulfilment updates, revocations). */
export interface TopicHandler<T> {
  schema: z.ZodType<T>;
  /** Idempotency key of a message (unique per message, stable across redeliveries). */
  id(message: T): string;
  handle(message: T, ctx: ConsumerContext): Promise<void>;
}

/** A TopicHandler of any message type (what `topicHandlers` holds). */
export interface AnyTopicHandler {
  schema: z.ZodType;
  id(message: never): string;
  handle(message: never, ctx: ConsumerContext): Promise<void>;
}

/** Type inference helper: `topicHandler({ schema: FulfilmentUpdate, id: (u) => u.id, handle })`. */
export function topicHandler<T>(handler: TopicHandler<T>): TopicHandler<T> {
  return handler;
}

export interface ConsumerRetryOptions extends BackoffOptions {
  /** Tries of a failing handler before the message is dead-lettered; default 5. */
  attempts?: number;
}

export interface ConsumerOptions {
  kafka: Kafka;
  knex: Knex;
  groupId: string;
  topics: string[];
  handlers?: EventHandlers;
  /**
   * Which events of a handled type the handler acts on; the others are skipped as types without a
   * handler are (no transaction, no inbox row). For handlers that ignore most events of a type.
   */
  filters?: EventFilters;
  /** By topic, for topics that do not carry event envelopes. */
  topicHandlers?: Record<string, AnyTopicHandler>;
  retry?: ConsumerRetryOptions;
  logger?: MessagingLogger;
  /** Name in logs and entry point lists; default `consumer:<groupId>`. */
  name?: string;
  /** Where a new group starts: true (default) the oldest retained message, false only new ones. */
  fromBeginning?: boolean;
  deadLetterTopic?: string;
  /** kafkajs group session timeout; default 30 s (the broker's minimum is 6 s). */
  sessionTimeoutMs?: number;
  /** Default 3 s; keep it well under the session timeout. */
  heartbeatIntervalMs?: number;
  /** Default 30 s. */
  rebalanceTimeoutMs?: number;
  /**
   * Longest the broker holds a fetch before it answers: on an idle topic, and, with
   * `fetchMinBytes` above 1, while fewer bytes than that are waiting; default 5 s (tests: less).
   */
  maxWaitTimeMs?: number;
  /**
   * The broker answers a fetch once this many bytes are waiting (or `maxWaitTimeMs` has passed);
   * default 1, at once. Larger, a busy topic's messages come in fewer, larger batches: fewer
   * fetches, transactions and offset commits per message, for at most `maxWaitTimeMs` more delay.
   */
  fetchMinBytes?: number;
  /** Partitions processed in parallel (order holds within each); default 1. */
  partitionsConsumedConcurrently?: number;
  /** Inbox rows older than this are deleted (hourly); default 30 days. */
  inboxRetentionMs?: number;
  /** Most messages applied in one transaction (of one fetched batch of a partition); default 100. */
  maxMessagesPerTransaction?: number;
}

/** The group timings a service lets its tests shorten. */
export type ConsumerTuning = Pick<
  ConsumerOptions,
  'sessionTimeoutMs' | 'heartbeatIntervalMs' | 'maxWaitTimeMs' | 'fetchMinBytes'
>;

export interface ConsumerRunner extends EntryPoint {
  /**
   * Resolves once the consumer has joined its group and positioned itself on its partitions: from
   * then on every message produced is consumed (also with `fromBeginning: false`). Rejects after
   * `timeoutMs`.
   */
  waitForGroupJoin(timeoutMs?: number): Promise<void>;
  /** Kafka could not be reached at start: the consumer keeps trying to join in the background. */
  waitingForKafka(): boolean;
}

class StoppingError extends Error {
  constructor() {
    super('consumer is stopping');
  }
}

interface Prepared {
  id: string;
  apply(ctx: ConsumerContext): Promise<void>;
}

type Preparation =
  | { kind: 'apply'; prepared: Prepared }
  | { kind: 'skip' }
  | { kind: 'dead'; reason: DeadLetterReason; error: string };

/** A message of a fetched batch, with what its bytes say should happen to it. */
interface Item {
  message: KafkaMessage;
  preparation: Preparation;
}

/** A message to apply, with its context (less the transaction). */
interface Applicable {
  message: KafkaMessage;
  prepared: Prepared;
  ctxBase: Omit<ConsumerContext, 'trx' | 'beforeCommit'>;
}

/** The work registered with `beforeCommit` in one transaction, run in order before it commits. */
class CommitHooks {
  private readonly works: (() => Promise<void>)[] = [];
  readonly add = (work: () => Promise<void>): void => {
    this.works.push(work);
  };
  async run(): Promise<void> {
    for (const work of this.works) await work();
  }
}

/** A handler failed inside a batch transaction: which message, and what it threw. */
class BatchHandlerError extends Error {
  constructor(
    readonly index: number,
    readonly failure: unknown,
  ) {
    super(failure instanceof Error ? failure.message : String(failure));
  }
}

export function createConsumer(options: ConsumerOptions): ConsumerRunner {
  return new KafkaConsumerRunner(options);
}

class KafkaConsumerRunner implements ConsumerRunner {
  readonly name: string;
  private readonly logger: MessagingLogger;
  private readonly attempts: number;
  private readonly backoff: BackoffOptions;
  private readonly heartbeatIntervalMs: number;
  private readonly deadLetterTopic: string;
  private readonly inboxRetentionMs: number;
  private readonly maxPerTransaction: number;
  private consumer: Consumer | undefined;
  private producer: Producer | undefined;
  private stopping = false;
  private readonly waker = new Waker();
  private joined!: Promise<void>;
  /** Set while Kafka was unreachable at start: the pending retry (its timer, or the attempt running). */
  private startRetry: { timer: NodeJS.Timeout } | Promise<void> | undefined;
  private lastInboxPurge = 0;
  private lagGauge: LagGauge | undefined;

  constructor(private readonly options: ConsumerOptions) {
    this.name = options.name ?? `consumer:${options.groupId}`;
    this.logger = options.logger ?? silentLogger;
    this.attempts = Math.max(1, options.retry?.attempts ?? 5);
    this.backoff = { initialMs: 200, maxMs: 30_000, ...options.retry };
    this.heartbeatIntervalMs = options.heartbeatIntervalMs ?? 3000;
    this.deadLetterTopic = options.deadLetterTopic ?? TOPICS.deadLetter;
    this.inboxRetentionMs = options.inboxRetentionMs ?? 30 * 24 * 3600 * 1000;
    this.maxPerTransaction = Math.max(1, options.maxMessagesPerTransaction ?? 100);
  }

  /**
   * Connects, joins the group and starts consuming. When Kafka cannot be reached, the process still
   * starts (its HTTP API and outbox do not need Kafka): the consumer logs a warning and keeps trying
   * in the background with backoff; meanwhile `waitingForKafka()` is true and `waitForGroupJoin`
   * fails. Any other failure (a missing topic, say) is thrown.
   */
  async start(): Promise<void> {
    if (this.consumer || this.startRetry) return;
    this.stopping = false;
    try {
      await this.connectAndRun();
    } catch (err) {
      await this.discardConsumer();
      if (!isKafkaUnreachable(err)) throw err;
      this.logger.warn(
        { err, group: this.options.groupId },
        'Kafka is unreachable: the consumer keeps trying to join its group in the background',
      );
      this.retryStart(1);
    }
  }

  private retryStart(attempt: number): void {
    const timer = setTimeout(
      () => {
        this.startRetry = (async () => {
          try {
            await this.connectAndRun();
            this.startRetry = undefined;
            this.logger.info(
              { group: this.options.groupId, attempt },
              'Kafka answers again: the consumer started',
            );
          } catch (err) {
            await this.discardConsumer();
            this.startRetry = undefined;
            if (this.stopping) return;
            this.logger.warn(
              { err, group: this.options.groupId, attempt },
              'the consumer could not start yet; retrying',
            );
            this.retryStart(attempt + 1);
          }
        })();
      },
      backoffDelay(attempt, { initialMs: 1000, maxMs: 30_000 }),
    );
    timer.unref();
    this.startRetry = { timer };
  }

  private async discardConsumer(): Promise<void> {
    const consumer = this.consumer;
    const producer = this.producer;
    this.consumer = undefined;
    this.producer = undefined;
    await consumer?.disconnect().catch(() => {});
    await producer?.disconnect().catch(() => {});
  }

  private async connectAndRun(): Promise<void> {
    const o = this.options;
    this.lastInboxPurge = Date.now();
    const consumer = o.kafka.consumer({
      groupId: o.groupId,
      sessionTimeout: o.sessionTimeoutMs ?? 30_000,
      heartbeatInterval: this.heartbeatIntervalMs,
      rebalanceTimeout: o.rebalanceTimeoutMs ?? 30_000,
      maxWaitTimeInMs: o.maxWaitTimeMs ?? 5000,
      minBytes: o.fetchMinBytes ?? 1,
      allowAutoTopicCreation: false,
    });
    this.consumer = consumer;
    // Joined, and positioned: the first fetch after the join has resolved the partitions' offsets,
    // so a message produced from then on is consumed even by a group that starts at the end.
    this.joined = new Promise<void>((resolve) => {
      let member = false;
      const offJoin = consumer.on(consumer.events.GROUP_JOIN, () => {
        member = true;
        offJoin();
      });
      const offFetch = consumer.on(consumer.events.FETCH, () => {
        if (!member) return;
        offFetch();
        resolve();
      });
    });
    consumer.on(consumer.events.CRASH, (e) =>
      this.logger.error(
        { err: e.payload.error, restart: e.payload.restart, group: o.groupId },
        'Kafka consumer crashed',
      ),
    );
    this.producer = createOrderedProducer(o.kafka, { retries: 5 });
    await this.producer.connect();
    await consumer.connect();
    await consumer.subscribe({ topics: o.topics, fromBeginning: o.fromBeginning ?? true });
    this.lagGauge ??= observeConsumerLag(o.kafka, o.groupId, o.topics);
    await consumer.run({
      autoCommit: true,
      // Offsets are resolved here, each once its message's effect (or dead letter) is committed.
      eachBatchAutoResolve: false,
      partitionsConsumedConcurrently: o.partitionsConsumedConcurrently ?? 1,
      eachBatch: (payload) => this.onBatch(payload),
    });
  }

  async stop(): Promise<void> {
    if (this.startRetry) {
      this.stopping = true;
      const retry = this.startRetry;
      if ('timer' in retry) clearTimeout(retry.timer);
      else await retry;
      this.startRetry = undefined;
    }
    if (!this.consumer) return;
    this.stopping = true;
    this.waker.wake();
    const consumer = this.consumer;
    this.consumer = undefined;
    await this.lagGauge?.remove();
    this.lagGauge = undefined;
    await consumer.disconnect();
    await this.producer?.disconnect();
    this.producer = undefined;
  }

  waitingForKafka(): boolean {
    return this.startRetry !== undefined;
  }

  waitForGroupJoin(timeoutMs = 30_000): Promise<void> {
    if (!this.consumer) {
      return Promise.reject(
        new Error(this.startRetry ? `${this.name} cannot reach Kafka yet` : `${this.name} is not started`),
      );
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new Error(`${this.name} did not join its group within ${timeoutMs} ms`)),
        timeoutMs,
      );
    });
    return Promise.race([this.joined, timeout]).finally(() => clearTimeout(timer));
  }

  /**
   * A fetched batch of one partition, in offset order: runs of messages to apply go through one
   * transaction each; a dead letter is written in its place in the order; skipped messages only
   * move the offset. An offset is resolved once everything up to it is committed.
   */
  private async onBatch({
    batch,
    resolveOffset,
    heartbeat,
    isRunning,
    isStale,
  }: EachBatchPayload): Promise<void> {
    const { topic, partition } = batch;
    const items: Item[] = batch.messages.map((message) => ({
      message,
      preparation: this.prepare(topic, message),
    }));
    let i = 0;
    while (i < items.length) {
      if (!isRunning() || isStale()) return; // the rest is fetched again by whoever owns the partition
      const item = items[i]!;
      const { preparation, message } = item;
      if (preparation.kind === 'dead') {
        this.countOutcome(topic, 'dead_lettered');
        await withConsumerSpan(
          `${topic} process`,
          message.headers,
          async (span) => {
            span.setAttribute('ordering.dead_letter.reason', preparation.reason);
            await this.deadLetter(
              topic,
              partition,
              message,
              preparation.reason,
              preparation.error,
              heartbeat,
            );
          },
          this.spanAttributes(topic, partition, message),
        );
        resolveOffset(message.offset);
        i++;
        continue;
      }
      // A run: the messages up to the next dead letter (skipped ones included), bounded in size.
      const run: Applicable[] = [];
      let j = i;
      for (; j < items.length; j++) {
        const p = items[j]!.preparation;
        if (p.kind === 'dead') break;
        if (p.kind === 'skip') {
          this.countOutcome(topic, 'skipped');
          continue;
        }
        if (run.length >= this.maxPerTransaction) break;
        const m = items[j]!.message;
        run.push({
          message: m,
          prepared: p.prepared,
          ctxBase: {
            headers: m.headers ?? {},
            topic,
            partition,
            offset: m.offset,
            key: m.key?.toString() ?? null,
          },
        });
      }
      await this.applyRun(run, heartbeat);
      resolveOffset(items[j - 1]!.message.offset);
      i = j;
      await heartbeat();
    }
    await this.maybePurgeInbox();
  }

  private countOutcome(topic: string, outcome: string): void {
    platformMetrics().consumerMessages.add(1, { group: this.options.groupId, topic, outcome });
  }

  private spanAttributes(topic: string, partition: number, message: KafkaMessage): Attributes {
    const eventType = message.headers?.['event-type']?.toString();
    return {
      'messaging.system': 'kafka',
      'messaging.operation.type': 'process',
      'messaging.destination.name': topic,
      'messaging.destination.partition.id': String(partition),
      'messaging.kafka.offset': Number(message.offset),
      'messaging.consumer.group.name': this.options.groupId,
      ...(message.key ? { 'messaging.kafka.message.key': message.key.toString() } : {}),
      ...(eventType ? { [ATTR.eventType]: eventType } : {}),
    };
  }

  /** Runs `apply` in the message's CONSUMER span, continuing the producer's trace. */
  private inSpan<T>(a: Applicable, apply: (span: Span) => Promise<T>): Promise<T> {
    return withConsumerSpan(
      `${a.ctxBase.topic} process`,
      a.message.headers,
      (span) => {
        span.setAttribute('messaging.message.id', a.prepared.id);
        span.setAttribute(ATTR.eventId, a.prepared.id);
        return apply(span);
      },
      this.spanAttributes(a.ctxBase.topic, a.ctxBase.partition, a.message),
    );
  }

  /**
   * Applies a run of messages in one transaction (retried while the infrastructure fails). When a
   * handler fails, the transaction rolls back and the messages up to the failing one are applied
   * one at a time with the per-message retries and dead letters, and the rest is a new run. Returns
   * once every message is applied or dead-lettered (throws StoppingError when stopped first).
   */
  private async applyRun(run: Applicable[], heartbeat: () => Promise<void>): Promise<void> {
    if (run.length === 0) return;
    // Alone, a message's transaction (its inbox insert included) runs in its CONSUMER span.
    if (run.length === 1) return this.applyAlone(run[0]!, heartbeat);
    let infrastructureFailures = 0;
    for (;;) {
      try {
        await this.applyTogether(run);
        for (const a of run) this.countOutcome(a.ctxBase.topic, 'applied');
        return;
      } catch (err) {
        if (err instanceof BatchHandlerError) {
          // Alone, each message up to the failing one gets the retries and dead letter it would have.
          for (let k = 0; k <= err.index; k++) {
            await this.applyAlone(run[k]!, heartbeat, k === err.index ? err.failure : undefined);
          }
          return this.applyRun(run.slice(err.index + 1), heartbeat);
        }
        const infrastructure = isTransientInfrastructureError(err);
        if (!infrastructure) {
          // Neither a handler's failure nor the infrastructure's (the inbox insert, the commit): alone.
          for (const a of run) await this.applyAlone(a, heartbeat);
          return;
        }
        const delay = backoffDelay(++infrastructureFailures, this.backoff);
        this.logger.warn(
          {
            err,
            topic: run[0]!.ctxBase.topic,
            partition: run[0]!.ctxBase.partition,
            offset: run[0]!.ctxBase.offset,
            messages: run.length,
            attempt: infrastructureFailures,
            infrastructure,
            retry_in_ms: delay,
          },
          'handler failed; retrying',
        );
        await this.pauseWithHeartbeats(delay, heartbeat);
      }
    }
  }

  /** One transaction: the inbox rows of the run in one insert, then each new message's handler. */
  private async applyTogether(run: Applicable[]): Promise<void> {
    await this.options.knex.transaction(async (trx) => {
      const hooks = new CommitHooks();
      const ids = [...new Set(run.map((a) => a.prepared.id))];
      const inserted: { event_id: string }[] = await trx(INBOX_TABLE)
        .insert(ids.map((id) => ({ consumer: this.options.groupId, event_id: id })))
        .onConflict(['consumer', 'event_id'])
        .ignore()
        .returning('event_id');
      const fresh = new Set(inserted.map((r) => r.event_id));
      for (let k = 0; k < run.length; k++) {
        const a = run[k]!;
        if (!fresh.delete(a.prepared.id)) {
          this.logger.debug(
            { event_id: a.prepared.id, topic: a.ctxBase.topic },
            'already applied; skipping duplicate',
          );
          continue;
        }
        try {
          await this.inSpan(a, () => a.prepared.apply({ ...a.ctxBase, trx, beforeCommit: hooks.add }));
        } catch (err) {
          throw isTransientInfrastructureError(err) ? err : new BatchHandlerError(k, err);
        }
      }
      // Not a BatchHandlerError when it fails: no one message to blame, so each is applied alone.
      await hooks.run();
    });
  }

  /** A message in its own transaction, with retries and the dead letter (the first failure given). */
  private async applyAlone(
    a: Applicable,
    heartbeat: () => Promise<void>,
    firstFailure?: unknown,
  ): Promise<void> {
    const outcome = await this.applyWithRetries(a, heartbeat, firstFailure);
    this.countOutcome(a.ctxBase.topic, outcome ? 'dead_lettered' : 'applied');
    if (outcome) {
      await this.inSpan(a, async (span) => {
        span.setAttribute('ordering.dead_letter.reason', outcome.reason);
        await this.deadLetter(
          a.ctxBase.topic,
          a.ctxBase.partition,
          a.message,
          outcome.reason,
          outcome.error,
          heartbeat,
        );
      });
    }
  }

  /** Decides, from the bytes alone, whether the message is applied, skipped or dead-lettered. */
  private prepare(topic: string, message: KafkaMessage): Preparation {
    let value: unknown;
    try {
      if (!message.value || message.value.length === 0) throw new Error('empty message');
      value = JSON.parse(message.value.toString('utf8'));
    } catch (err) {
      return { kind: 'dead', reason: 'invalid_json', error: (err as Error).message };
    }

    const topicHandler = this.options.topicHandlers?.[topic] as unknown as TopicHandler<unknown> | undefined;
    if (topicHandler) {
      const parsed = topicHandler.schema.safeParse(value);
      if (!parsed.success)
        return { kind: 'dead', reason: 'invalid_message', error: describeIssues(parsed.error) };
      const msg = parsed.data;
      return {
        kind: 'apply',
        prepared: { id: topicHandler.id(msg), apply: (ctx) => topicHandler.handle(msg, ctx) },
      };
    }

    const base = EventEnvelopeBase.safeParse(value);
    if (!base.success) return { kind: 'dead', reason: 'invalid_envelope', error: describeIssues(base.error) };
    const handler = this.options.handlers?.[base.data.type as EventType] as EventHandler<unknown> | undefined;
    if (!handler) return { kind: 'skip' };
    try {
      const event = parseEvent(value);
      const wanted = this.options.filters?.[event.type] as ((e: unknown) => boolean) | undefined;
      if (wanted && !wanted(event)) return { kind: 'skip' };
      return { kind: 'apply', prepared: { id: event.id, apply: (ctx) => handler(event, ctx) } };
    } catch (err) {
      if (err instanceof EventValidationError) {
        return {
          kind: 'dead',
          reason: err.reason === 'invalid_envelope' ? 'invalid_envelope' : 'invalid_data',
          error: err.message,
        };
      }
      throw err;
    }
  }

  /**
   * Undefined when applied (or already applied before); the dead-letter reason otherwise.
   * `firstFailure`: what the message's handler threw in a batch transaction (its first attempt).
   */
  private async applyWithRetries(
    a: Applicable,
    heartbeat: () => Promise<void>,
    firstFailure?: unknown,
  ): Promise<{ reason: DeadLetterReason; error: string } | undefined> {
    let failures = 0;
    let infrastructureFailures = 0;
    let pending: { err: unknown } | undefined =
      firstFailure === undefined ? undefined : { err: firstFailure };
    for (;;) {
      try {
        if (pending) throw pending.err;
        await this.applyOnce(a);
        return undefined;
      } catch (err) {
        pending = undefined;
        if (err instanceof PermanentError) return { reason: 'permanent_error', error: err.message };
        const infrastructure = isTransientInfrastructureError(err);
        const attempt = infrastructure ? ++infrastructureFailures : ++failures;
        if (!infrastructure && failures >= this.attempts) {
          return { reason: 'retries_exhausted', error: err instanceof Error ? err.message : String(err) };
        }
        const delay = backoffDelay(attempt, this.backoff);
        this.logger.warn(
          {
            err,
            topic: a.ctxBase.topic,
            partition: a.ctxBase.partition,
            offset: a.ctxBase.offset,
            attempt,
            infrastructure,
            retry_in_ms: delay,
          },
          'handler failed; retrying',
        );
        await this.pauseWithHeartbeats(delay, heartbeat);
      }
    }
  }

  private async applyOnce(a: Applicable): Promise<void> {
    await this.inSpan(a, () =>
      this.options.knex.transaction(async (trx) => {
        const inserted = await trx(INBOX_TABLE)
          .insert({ consumer: this.options.groupId, event_id: a.prepared.id })
          .onConflict(['consumer', 'event_id'])
          .ignore()
          .returning('event_id');
        if (inserted.length === 0) {
          this.logger.debug(
            { event_id: a.prepared.id, topic: a.ctxBase.topic },
            'already applied; skipping duplicate',
          );
          return;
        }
        const hooks = new CommitHooks();
        await a.prepared.apply({ ...a.ctxBase, trx, beforeCommit: hooks.add });
        await hooks.run();
      }),
    );
  }

  private async deadLetter(
    topic: string,
    partition: number,
    message: KafkaMessage,
    reason: DeadLetterReason,
    error: string,
    heartbeat: () => Promise<void>,
  ): Promise<void> {
    const letter = deadLetterMessage(message, {
      topic,
      partition,
      offset: message.offset,
      consumerGroup: this.options.groupId,
      reason,
      error,
      failedAt: new Date().toISOString(),
    });
    this.logger.warn(
      { topic, partition, offset: message.offset, reason, error },
      'message sent to the dead-letter topic',
    );
    // The offset moves on only once the copy is safely on the dead-letter topic.
    for (let attempt = 1; ; attempt++) {
      try {
        if (!this.producer) throw new StoppingError();
        await this.producer.send({ topic: this.deadLetterTopic, acks: -1, messages: [letter] });
        return;
      } catch (err) {
        if (err instanceof StoppingError) throw err;
        const delay = backoffDelay(attempt, this.backoff);
        this.logger.error({ err, retry_in_ms: delay }, 'cannot write to the dead-letter topic; retrying');
        await this.pauseWithHeartbeats(delay, heartbeat);
      }
    }
  }

  /** Waits, keeping the group membership alive; throws StoppingError (offset not committed) on stop. */
  private async pauseWithHeartbeats(ms: number, heartbeat: () => Promise<void>): Promise<void> {
    const until = Date.now() + ms;
    for (;;) {
      if (this.stopping) throw new StoppingError();
      const left = until - Date.now();
      if (left <= 0) return;
      // A rebalance makes this throw: the message is then left uncommitted for its next owner.
      await heartbeat();
      await this.waker.sleep(Math.min(left, this.heartbeatIntervalMs));
    }
  }

  private async maybePurgeInbox(): Promise<void> {
    if (Date.now() - this.lastInboxPurge < 3600 * 1000) return;
    this.lastInboxPurge = Date.now();
    await purgeProcessedEvents(this.options.knex, this.options.groupId, this.inboxRetentionMs).catch(
      (err: unknown) => this.logger.warn({ err }, 'could not purge the inbox'),
    );
  }
}

/** No Kafka broker answers (refused, timed out, unknown host): an outage, not a misconfiguration. */
const UNREACHABLE_ERRORS = new Set([
  'KafkaJSConnectionError',
  'KafkaJSConnectionClosedError',
  'KafkaJSBrokerNotFound',
  'KafkaJSRequestTimeoutError',
]);

function isKafkaUnreachable(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    if (UNREACHABLE_ERRORS.has(String((e as { name?: unknown }).name))) return true;
    e =
      (e as { cause?: unknown; originalError?: unknown }).cause ??
      (e as { originalError?: unknown }).originalError;
  }
  return isTransientInfrastructureError(err);
}
