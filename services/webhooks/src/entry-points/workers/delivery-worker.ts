// The delivery worker: leases due deliveries from the database (several workers and replicas run at
// once; a lease is taken by one conditional UPDATE, so no delivery is sent by two at the same time),
// keeps one queue per subscription with its own concurrency limit (a slow or dead endpoint holds at
// most its own slots, never another's), POSTs each delivery with the spec's headers and signature,
// and records every attempt with the delivery's next state in batched transactions.
//
// A worker killed mid-delivery leaves its leases to expire (DELIVERY_LEASE_MS); another worker then
// sends those deliveries again with the same `Service-Delivery` id: at least once, never lost.
//
// A disabled subscription's deliveries are held: never claimed, never sent (a leased one whose
// subscription was disabled since is given back unsent), and every second a sweep fails those whose
// 24 h window ended meanwhile (domain/held-deliveries.ts). Its `webhook.test` deliveries alone go
// out (a test checks an endpoint before it is enabled).
import { randomUUID } from 'node:crypto';
import { eventJson } from '@ordering/contracts';
import { traceFields } from '@ordering/http';
import type { EntryPoint } from '@ordering/messaging';
import { recordDeliveryGivenUp, withWebhookAttemptSpan } from '@ordering/telemetry';
import type { AttemptOutcome, DeliveryRepository, DeliveryRow } from '../../data-access/delivery-repository';
import type { SubscriptionRepository, SubscriptionRow } from '../../data-access/subscription-repository';
import type { HttpSender } from '../../delivery/http-sender';
import type { DeliveryClock } from '../../domain/delivery-clock';
import {
  UNHELD_EVENT_TYPE,
  failHeldPastHorizon,
  isHeld,
  reportHeldGivenUp,
} from '../../domain/held-deliveries';
import { nextAttemptAt, retryAfterMs } from '../../domain/retry-schedule';
import type { SecretBox } from '../../domain/secret-box';
import { signatureHeader } from '../../domain/signature';

export interface WorkerLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** The body of a delivery for its subscription, or null when this subscription must not get it. */
export type BodyFor = (delivery: DeliveryRow, subscription: SubscriptionRow) => Promise<string | null>;

export interface DeliveryWorkerOptions {
  deliveries: DeliveryRepository;
  subscriptions: SubscriptionRepository;
  secrets: SecretBox;
  sender: HttpSender;
  clock: DeliveryClock;
  logger: WorkerLogger;
  concurrency: number;
  perEndpoint: number;
  timeoutMs: number;
  leaseMs: number;
  pollMs: number;
  bodyFor?: BodyFor;
  /** Called after each attempt is recorded (tests and metrics). */
  onAttempt?: (outcome: AttemptOutcome) => void;
  name?: string;
}

/** What one attempt came to: the receiver's answer, or why none came. */
interface AttemptResult {
  ok: boolean;
  /** The answer's status (null: none). */
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  responseExcerpt: string | null;
  retryAfter?: string;
}

interface Queued {
  row: DeliveryRow;
  subscription: SubscriptionRow;
  secrets: string[];
  /** When `subscription` was read (real time). */
  readAt: number;
  leaseEndsAt: number;
}

/** How often (real time) each worker fails the held deliveries whose 24 h ended. */
export const HELD_SWEEP_MS = 1000;

/**
 * A delivery that waited this long (real time) in its subscription's queue re-reads the
 * subscription before it is sent: one disabled (or changed) meanwhile is not sent to.
 */
const RECHECK_AFTER_MS = 50;

export class DeliveryWorker implements EntryPoint {
  readonly name: string;
  readonly owner = `worker-${randomUUID()}`;
  private running = false;
  private loop: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private wakeTimer: NodeJS.Timeout | undefined;
  private woken = false;
  private readonly queues = new Map<string, Queued[]>();
  private readonly active = new Map<string, number>();
  private inFlight = 0;
  private queued = 0;
  private readonly sends = new Set<Promise<void>>();
  private outcomes: AttemptOutcome[] = [];
  private flushing: Promise<void> | undefined;
  private nextSweepAt = 0;

  constructor(private readonly o: DeliveryWorkerOptions) {
    this.name = o.name ?? 'delivery-worker';
  }

  async start(): Promise<void> {
    this.running = true;
    this.loop = this.run();
  }

  async stop(): Promise<void> {
    this.running = false;
    clearTimeout(this.wakeTimer);
    this.wake();
    await this.loop;
    // Deliveries leased but not started go back at once; those in flight finish (within the timeout).
    const unsent = [...this.queues.values()].flat().map((q) => q.row.id);
    this.queues.clear();
    await Promise.allSettled([...this.sends]);
    await this.flush();
    await this.o.deliveries.release(this.owner, unsent).catch(() => {});
  }

  /**
   * Looks for more soon: slots freed by sends that finish within a few milliseconds of each other
   * are filled by one claim, not one database round trip per finished send.
   */
  private wakeSoon(): void {
    if (this.wakeTimer) return;
    this.wakeTimer = setTimeout(() => {
      this.wakeTimer = undefined;
      this.wake();
    }, 5);
  }

  /** Looks for due deliveries now (a delivery was just committed). */
  wake(): void {
    this.woken = true;
    this.wakeUp?.();
  }

  private async run(): Promise<void> {
    while (this.running) {
      if (Date.now() >= this.nextSweepAt) await this.sweepHeld();
      let claimedFull: boolean;
      try {
        claimedFull = await this.claim();
      } catch (err) {
        this.o.logger.warn({ err }, 'claiming deliveries failed; retrying');
        await this.sleep(Math.max(this.o.pollMs, 1000));
        continue;
      }
      if (!claimedFull) await this.sleep(this.o.pollMs);
    }
  }

  private sleep(ms: number): Promise<void> {
    if (this.woken) {
      this.woken = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wakeUp = () => {
        this.wakeUp = undefined;
        this.woken = false;
        done();
      };
    });
  }

  /** Fails the held deliveries (of disabled subscriptions) whose 24 h window ended. */
  private async sweepHeld(): Promise<void> {
    this.nextSweepAt = Date.now() + HELD_SWEEP_MS;
    try {
      reportHeldGivenUp(this.o.logger, await failHeldPastHorizon(this.o.deliveries, this.o.clock.now()));
    } catch (err) {
      this.o.logger.warn({ err }, 'failing the held deliveries past their 24 h failed; retrying');
    }
  }

  /** Leases what fits; true when it filled the free capacity (more may be due). */
  private async claim(): Promise<boolean> {
    const capacity = this.o.concurrency - this.inFlight - this.queued;
    if (capacity <= 0) return false;
    const saturated = [...this.active.entries()]
      .filter(([id, n]) => n + (this.queues.get(id)?.length ?? 0) >= this.o.perEndpoint)
      .map(([id]) => id);
    const claimedAt = Date.now();
    const rows = await this.o.deliveries.claim({
      owner: this.owner,
      now: this.o.clock.now(),
      capacity,
      perSubscription: this.o.perEndpoint,
      excludeSubscriptions: saturated,
      leaseMs: this.o.leaseMs,
      unheldType: UNHELD_EVENT_TYPE,
    });
    if (rows.length === 0) return false;
    const subscriptionIds = [...new Set(rows.map((r) => r.subscription_id))];
    const [subscriptions, secrets] = await Promise.all([
      this.o.subscriptions.findByIds(subscriptionIds),
      this.o.subscriptions.activeSecrets(subscriptionIds, this.o.clock.now()),
    ]);
    const readAt = Date.now();
    const opened = this.openSecrets(secrets);
    const unsigned: Promise<unknown>[] = [];
    const held: string[] = [];
    for (const row of rows) {
      const subscription = subscriptions.get(row.subscription_id);
      if (!subscription) continue; // deleted meanwhile: its deliveries went with it
      if (isHeld(subscription, row)) {
        held.push(row.id); // disabled since it was claimed: given back, not sent
        continue;
      }
      const signing = opened.get(row.subscription_id) ?? [];
      if (signing instanceof Error) {
        // Never sent unsigned; a failed attempt of its own, so the rest of the batch goes out.
        unsigned.push(this.notSent(row, subscription, signing.message));
        continue;
      }
      const queue = this.queues.get(row.subscription_id) ?? [];
      queue.push({ row, subscription, secrets: signing, readAt, leaseEndsAt: claimedAt + this.o.leaseMs });
      this.queues.set(row.subscription_id, queue);
      this.queued++;
    }
    for (const id of subscriptionIds) this.pump(id);
    if (held.length > 0) await this.giveBack(held);
    if (unsigned.length > 0) {
      await Promise.all(unsigned);
      await this.flush();
    }
    return rows.length >= capacity;
  }

  /**
   * Each subscription's signing secrets, opened; an Error for a subscription whose secret does not
   * open (stored under another SIGNING_SECRETS_KEY, or damaged), logged once per claim. One such
   * subscription must not stop the deliveries of every other one in the batch.
   */
  private openSecrets(sealed: Map<string, string[]>): Map<string, string[] | Error> {
    const opened = new Map<string, string[] | Error>();
    for (const [subscriptionId, secrets] of sealed) {
      try {
        opened.set(
          subscriptionId,
          secrets.map((s) => this.o.secrets.open(s)),
        );
      } catch (err) {
        this.o.logger.error(
          { err, subscription_id: subscriptionId },
          "a subscription's signing secret does not open with SIGNING_SECRETS_KEY; its deliveries are not sent",
        );
        opened.set(subscriptionId, new Error("the subscription's signing secret cannot be opened"));
      }
    }
    return opened;
  }

  private pump(subscriptionId: string): void {
    const queue = this.queues.get(subscriptionId);
    while (queue && queue.length > 0 && (this.active.get(subscriptionId) ?? 0) < this.o.perEndpoint) {
      const item = queue.shift()!;
      this.queued--;
      // Too little lease left to finish within the timeout: leave it to whoever leases it next.
      if (Date.now() + this.o.timeoutMs + 1000 > item.leaseEndsAt) continue;
      this.active.set(subscriptionId, (this.active.get(subscriptionId) ?? 0) + 1);
      this.inFlight++;
      const send = this.deliver(item).finally(() => {
        this.sends.delete(send);
        this.inFlight--;
        const n = (this.active.get(subscriptionId) ?? 1) - 1;
        if (n === 0) this.active.delete(subscriptionId);
        else this.active.set(subscriptionId, n);
        this.pump(subscriptionId);
        if (this.running) this.wakeSoon();
      });
      this.sends.add(send);
    }
    if (queue && queue.length === 0) this.queues.delete(subscriptionId);
  }

  /** Gives leased deliveries back unsent (their subscription is disabled). */
  private async giveBack(ids: string[]): Promise<void> {
    await this.o.deliveries.release(this.owner, ids).catch((err: unknown) => {
      // The lease then runs out by itself; nothing was sent.
      this.o.logger.warn({ err, deliveries: ids.length }, 'giving deliveries back failed');
    });
  }

  /** The subscription as it is now for a delivery that waited for a slot; undefined if it went. */
  private async current(item: Queued): Promise<SubscriptionRow | undefined> {
    if (Date.now() - item.readAt <= RECHECK_AFTER_MS) return item.subscription;
    return (await this.o.subscriptions.findByIds([item.row.subscription_id])).get(item.row.subscription_id);
  }

  private async deliver(item: Queued): Promise<void> {
    const { row } = item;
    let subscription: SubscriptionRow | undefined;
    try {
      subscription = await this.current(item);
    } catch (err) {
      this.o.logger.warn({ err, delivery_id: row.id }, 'reading a subscription failed; its delivery waits');
      await this.giveBack([row.id]);
      return;
    }
    if (!subscription) return; // deleted meanwhile: its deliveries went with it
    if (isHeld(subscription, row)) {
      await this.giveBack([row.id]);
      return;
    }
    let body: string | null;
    try {
      body = this.o.bodyFor ? await this.o.bodyFor(row, subscription) : eventJson(row.event);
    } catch (err) {
      // What the event carries could not be read (e.g. the catalog is down): a failed attempt, retried.
      await this.notSent(row, subscription, (err as Error).message);
      await this.flush();
      return;
    }
    if (body === null) {
      // Nothing for this subscription (its account cannot see the item): the delivery goes away.
      await this.o.deliveries.discard(this.owner, [row.id]).catch((err: unknown) => {
        this.o.logger.warn({ err, delivery_id: row.id }, 'discarding a delivery failed; it will be retried');
      });
      return;
    }
    const sendBody = body;
    const timestamp = Math.floor(Date.now() / 1000);
    await this.inAttemptSpan(row, subscription, async () => {
      const sent = await this.o.sender.send({
        url: subscription.url,
        body: sendBody,
        headers: {
          'Content-Type': 'application/json',
          'Service-Event': row.event_type,
          'Service-Delivery': row.id,
          'Service-Signature': signatureHeader(sendBody, item.secrets, timestamp),
        },
      });
      return sent;
    });
    await this.flush();
  }

  /**
   * One attempt in its span (a child of the event's trace, kept with the delivery) with the attempt
   * metrics; its outcome is queued, and logged, inside that span, so the log line carries the
   * attempt's `trace_id` and `span_id` as every line logged in a request's span does.
   */
  private inAttemptSpan(
    row: DeliveryRow,
    subscription: SubscriptionRow,
    attempt: () => Promise<AttemptResult>,
  ): Promise<AttemptResult> {
    return withWebhookAttemptSpan(
      {
        deliveryId: row.id,
        eventId: row.event_id,
        eventType: row.event_type,
        subscriptionId: row.subscription_id,
        attempt: row.attempt_count + 1,
        replayed: row.replay_count > 0,
        url: subscription.url,
        ...(row.trace_context ? { traceHeaders: row.trace_context } : {}),
      },
      async () => {
        const result = await attempt();
        this.recordOutcome(row, this.outcomeOf(row, result));
        return result;
      },
    );
  }

  /**
   * Queues the outcome for the batch write and tells on-call about a failure: each failed attempt
   * is an info line (when it is tried next), a delivery given up a warning; both carry the event's
   * trace id. A success is in the attempt metrics and the deliveries list, not the log.
   */
  private recordOutcome(row: DeliveryRow, outcome: AttemptOutcome): void {
    this.outcomes.push(outcome);
    if (outcome.status === 'succeeded') return;
    // The attempt's span adds trace_id and span_id (the logger's mixin); without tracing, the event's trace id.
    const traceId = row.trace_context?.traceparent?.split('-')[1];
    const untraced = Object.keys(traceFields()).length === 0;
    const fields = {
      delivery_id: row.id,
      subscription_id: row.subscription_id,
      event_id: row.event_id,
      event_type: row.event_type,
      attempt: row.attempt_count + 1,
      status_code: outcome.attempt.status_code,
      error: outcome.attempt.error,
      next_attempt_at: outcome.nextAttemptAt?.toISOString() ?? null,
      ...(traceId && untraced ? { trace_id: traceId } : {}),
    };
    if (outcome.status === 'failed') {
      recordDeliveryGivenUp({ eventType: row.event_type });
      this.o.logger.warn(fields, 'webhook delivery failed for good: its retries are over');
    } else {
      this.o.logger.info(fields, 'webhook attempt failed; it will be retried');
    }
  }

  /** A failed attempt that sent nothing (retried like any failure), saying why. */
  private notSent(row: DeliveryRow, subscription: SubscriptionRow, why: string): Promise<AttemptResult> {
    return this.inAttemptSpan(row, subscription, async () => ({
      ok: false,
      statusCode: null,
      latencyMs: 0,
      error: `not sent: ${why}`,
      responseExcerpt: null,
    }));
  }

  private outcomeOf(row: DeliveryRow, result: AttemptResult): AttemptOutcome {
    const now = this.o.clock.now();
    const attempt = {
      delivery_id: row.id,
      attempted_at: now,
      status_code: result.statusCode,
      latency_ms: result.latencyMs,
      error: result.error,
      response_excerpt: result.responseExcerpt,
    };
    const replayCount = row.replay_count;
    if (result.ok)
      return { deliveryId: row.id, attempt, status: 'succeeded', nextAttemptAt: null, replayCount };
    const honoursRetryAfter = result.statusCode === 429 || result.statusCode === 503;
    const wait = honoursRetryAfter ? retryAfterMs(result.retryAfter, now) : undefined;
    const next = nextAttemptAt({
      now,
      firstAttemptAt: row.first_attempt_at ?? now,
      attemptCount: row.attempt_count + 1,
      ...(wait === undefined ? {} : { retryAfterMs: wait }),
    });
    return {
      deliveryId: row.id,
      attempt,
      status: next ? 'pending' : 'failed',
      nextAttemptAt: next,
      replayCount,
    };
  }

  /** Writes the collected outcomes in one transaction; concurrent callers share the same write. */
  private flush(): Promise<void> {
    if (this.flushing) return this.flushing.then(() => (this.outcomes.length > 0 ? this.flush() : undefined));
    if (this.outcomes.length === 0) return Promise.resolve();
    const batch = this.outcomes;
    this.outcomes = [];
    this.flushing = (async () => {
      for (let attempt = 0; ; attempt++) {
        try {
          await this.o.deliveries.recordOutcomes(this.owner, batch);
          for (const outcome of batch) this.o.onAttempt?.(outcome);
          return;
        } catch (err) {
          // The database is down: keep the outcomes (the leases keep others off) and try again.
          this.o.logger.warn({ err, outcomes: batch.length }, 'recording attempts failed; retrying');
          if (!this.running && attempt >= 3) return;
          await new Promise((r) => setTimeout(r, Math.min(5000, 200 * 2 ** attempt)));
        }
      }
    })().finally(() => {
      this.flushing = undefined;
    });
    return this.flushing;
  }
}
