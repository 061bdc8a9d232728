// webhook_deliveries and their attempts: creation (fan-out, test, replay), the leased claim of due
// deliveries by workers, and the batched record of attempt outcomes.
import type { Knex } from 'knex';
import { newId } from '@ordering/contracts';
import { injectTraceHeaders } from '@ordering/telemetry';

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

export interface DeliveryRow {
  id: string;
  seq: string;
  subscription_id: string;
  event_id: string;
  event_type: string;
  event: Record<string, unknown> & { id: string; type: string; cust_id: string; data: unknown };
  resource_key: string | null;
  ordered: boolean;
  status: DeliveryStatus;
  /** Attempts since the delivery was created or last replayed (what the backoff counts). */
  attempt_count: number;
  /** Replays so far: the attempts after one are labelled `replay` in the metrics. */
  replay_count: number;
  next_attempt_at: Date | null;
  first_attempt_at: Date | null;
  lease_owner: string | null;
  lease_until: Date | null;
  /** W3C trace headers of the context the delivery was created in (its attempts join that trace). */
  trace_context: Record<string, string> | null;
  created_at: Date;
  updated_at: Date;
}

export interface AttemptRow {
  delivery_id: string;
  attempted_at: Date;
  status_code: number | null;
  latency_ms: number | null;
  error: string | null;
  response_excerpt: string | null;
}

export interface NewDelivery {
  id: string;
  subscription_id: string;
  event_id: string;
  event_type: string;
  event: unknown;
  resource_key: string | null;
  ordered: boolean;
  next_attempt_at: Date;
  created_at: Date;
  /** The trace context to keep with it; default the one active at the insert. */
  trace?: Record<string, string>;
}

/** A new delivery of `event` to subscription `s`, due at `due`, recorded at `now`. */
export function newDelivery(
  s: { id: string; ordering: string },
  event: { id: string; type: string },
  resourceKey: string | null,
  times: { due: Date; now: Date },
  trace?: Record<string, string>,
): NewDelivery {
  return {
    id: newId('whdel'),
    subscription_id: s.id,
    event_id: event.id,
    event_type: event.type,
    event,
    resource_key: resourceKey,
    ordered: s.ordering === 'per_resource',
    next_attempt_at: times.due,
    created_at: times.now,
    trace,
  };
}

export interface AttemptOutcome {
  deliveryId: string;
  attempt: AttemptRow;
  status: DeliveryStatus;
  nextAttemptAt: Date | null;
  /** The delivery's `replay_count` when it was claimed: a replay since then keeps its own state. */
  replayCount: number;
}

export interface DeliveryFilter {
  status?: DeliveryStatus;
  eventType?: string;
  createdAfter?: Date;
  createdBefore?: Date;
  /** Cursor: deliveries before this (created_at, id), newest first. */
  before?: { createdAt: Date; id: string };
  limit: number;
}

type Db = Knex | Knex.Transaction;

/**
 * What a replay sets: due `now`, a fresh window (24 h from its first attempt, backoff from the
 * start), one more replay counted.
 */
function replayed(knex: Knex, now: Date) {
  return {
    status: 'pending',
    first_attempt_at: null,
    attempt_count: 0,
    replay_count: knex.raw('replay_count + 1'),
    next_attempt_at: now,
    updated_at: now,
  } as const;
}

export class DeliveryRepository {
  constructor(private readonly knex: Knex) {}

  /**
   * Inserts deliveries; one already there for (event, subscription) is left as it is. Each keeps the
   * trace context active now (the consumer's span of the event, or the request of a test delivery).
   */
  async insert(db: Db, deliveries: NewDelivery[]): Promise<void> {
    if (deliveries.length === 0) return;
    const trace = injectTraceHeaders();
    const traceContext = Object.keys(trace).length > 0 ? JSON.stringify(trace) : null;
    await db('webhook_deliveries')
      .insert(
        deliveries.map(({ trace: own, ...d }) => ({
          ...d,
          event: JSON.stringify(d.event),
          trace_context: own ? (Object.keys(own).length > 0 ? JSON.stringify(own) : null) : traceContext,
          status: 'pending',
          updated_at: d.created_at,
        })),
      )
      .onConflict(['event_id', 'subscription_id'])
      .ignore();
  }

  /**
   * Keeps `event` as what the delivery sends from now on (every retry and replay sends it again).
   * Answers it as stored (jsonb orders an object's keys its own way), so that the first attempt
   * sends the very bytes of the later ones.
   */
  async keepEvent(id: string, event: DeliveryRow['event']): Promise<DeliveryRow['event']> {
    const [row] = await this.knex<DeliveryRow>('webhook_deliveries')
      .where({ id })
      .update({ event: JSON.stringify(event) as unknown as DeliveryRow['event'] })
      .returning('event');
    if (!row) throw new Error(`delivery ${id} is gone`);
    return row.event;
  }

  find(subscriptionId: string, id: string): Promise<DeliveryRow | undefined> {
    return this.knex<DeliveryRow>('webhook_deliveries')
      .where({ subscription_id: subscriptionId, id })
      .first();
  }

  list(subscriptionId: string, f: DeliveryFilter): Promise<DeliveryRow[]> {
    const q = this.knex<DeliveryRow>('webhook_deliveries').where({ subscription_id: subscriptionId });
    if (f.status) q.andWhere({ status: f.status });
    if (f.eventType) q.andWhere({ event_type: f.eventType });
    if (f.createdAfter) q.andWhere('created_at', '>=', f.createdAfter);
    if (f.createdBefore) q.andWhere('created_at', '<', f.createdBefore);
    if (f.before) {
      q.andWhereRaw('(created_at, id) < (?, ?)', [f.before.createdAt, f.before.id]);
    }
    return q
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(f.limit);
  }

  async attemptsOf(deliveryIds: string[]): Promise<Map<string, AttemptRow[]>> {
    const map = new Map<string, AttemptRow[]>();
    if (deliveryIds.length === 0) return map;
    const rows = (await this.knex('webhook_delivery_attempts')
      .whereIn('delivery_id', deliveryIds)
      .orderBy([{ column: 'delivery_id' }, { column: 'id' }])) as AttemptRow[];
    for (const r of rows) {
      const list = map.get(r.delivery_id) ?? [];
      list.push(r);
      map.set(r.delivery_id, list);
    }
    return map;
  }

  /**
   * Sends a delivery again (same id): pending, due `now`, a new 24 h retry window whose backoff starts
   * again from 30 s (`attempt_count` counts the attempts of the current window; the earlier attempt
   * rows stay). Answers the row, or undefined when there is no such delivery.
   */
  async replay(subscriptionId: string, id: string, now: Date): Promise<DeliveryRow | undefined> {
    const [row] = await this.knex<DeliveryRow>('webhook_deliveries')
      .where({ subscription_id: subscriptionId, id })
      .update(replayed(this.knex, now))
      .returning('*');
    return row as DeliveryRow | undefined;
  }

  /** Failed deliveries created in [since, until): counted, and (unless dryRun) sent again. */
  async replayFailed(
    subscriptionId: string,
    since: Date,
    until: Date,
    now: Date,
    dryRun: boolean,
  ): Promise<number> {
    const q = this.knex('webhook_deliveries')
      .where({ subscription_id: subscriptionId, status: 'failed' })
      .andWhere('created_at', '>=', since)
      .andWhere('created_at', '<', until);
    if (dryRun) {
      const [{ count }] = (await q.count({ count: '*' })) as [{ count: string }];
      return Number(count);
    }
    return q.update(replayed(this.knex, now));
  }

  /**
   * Leases up to `capacity` due deliveries to `owner` for `leaseMs` (real time), at most
   * `perSubscription` of one subscription, none of `excludeSubscriptions` nor of a disabled
   * subscription (held until it is enabled; its deliveries of `unheldType` excepted), and for an
   * ordered subscription only a resource's oldest pending delivery. The conditional UPDATE
   * re-checks each row under its lock, so two workers never lease the same delivery.
   */
  async claim(input: {
    owner: string;
    now: Date;
    capacity: number;
    perSubscription: number;
    excludeSubscriptions: string[];
    leaseMs: number;
    unheldType: string;
  }): Promise<DeliveryRow[]> {
    const result = await this.knex.raw<{ rows: DeliveryRow[] }>(
      `WITH due AS (
         SELECT d.id, d.subscription_id, d.next_attempt_at, d.seq
         FROM webhook_deliveries d
         WHERE d.status = 'pending' AND d.next_attempt_at <= ?
           AND (d.lease_until IS NULL OR d.lease_until < clock_timestamp())
           AND NOT (d.subscription_id = ANY(CAST(? AS text[])))
           AND EXISTS (
             SELECT 1 FROM webhook_subscriptions s
             WHERE s.id = d.subscription_id AND (s.status = 'enabled' OR d.event_type = ?))
           AND (NOT d.ordered OR NOT EXISTS (
             SELECT 1 FROM webhook_deliveries p
             WHERE p.status = 'pending' AND p.ordered AND p.subscription_id = d.subscription_id
               AND p.resource_key = d.resource_key AND p.seq < d.seq))
         ORDER BY d.next_attempt_at, d.seq
         LIMIT ?
       ), picked AS (
         SELECT id FROM (
           SELECT id, next_attempt_at, seq,
                  row_number() OVER (PARTITION BY subscription_id ORDER BY next_attempt_at, seq) AS rn
           FROM due) ranked
         WHERE rn <= ?
         ORDER BY next_attempt_at, seq
         LIMIT ?
       )
       UPDATE webhook_deliveries d
       SET lease_owner = ?, lease_until = clock_timestamp() + make_interval(secs => ?)
       FROM picked
       WHERE d.id = picked.id AND d.status = 'pending'
         AND (d.lease_until IS NULL OR d.lease_until < clock_timestamp())
       RETURNING d.*`,
      [
        input.now,
        input.excludeSubscriptions,
        input.unheldType,
        input.capacity * 4,
        input.perSubscription,
        input.capacity,
        input.owner,
        input.leaseMs / 1000,
      ],
    );
    return result.rows;
  }

  /**
   * Held deliveries (pending, of a disabled subscription, not leased) whose 24 h window ended by
   * `now` turn `failed`, at most `limit` of them, each with an attempt row saying why (no request
   * was made: no status code, no latency). The window of one never attempted runs from when it was
   * due. `subscriptionId`: that subscription's alone. Answers the deliveries as they were before.
   */
  async failHeldPastHorizon(
    input: {
      now: Date;
      horizonMs: number;
      error: string;
      limit: number;
      /** The event type that is never held (it is sent while the subscription is disabled). */
      unheldType: string;
      subscriptionId?: string;
    },
    db: Db = this.knex,
  ): Promise<DeliveryRow[]> {
    const cutoff = new Date(input.now.getTime() - input.horizonMs);
    const only = input.subscriptionId === undefined ? '' : 'AND d.subscription_id = ?';
    const onlyBinding = input.subscriptionId === undefined ? [] : [input.subscriptionId];
    const result = await db.raw<{ rows: DeliveryRow[] }>(
      `WITH held AS (
         SELECT d.id FROM webhook_deliveries d
         JOIN webhook_subscriptions s ON s.id = d.subscription_id AND s.status = 'disabled'
         WHERE d.status = 'pending' AND d.next_attempt_at <= ? AND d.event_type <> ? ${only}
           AND COALESCE(d.first_attempt_at, d.next_attempt_at) <= ?
           AND (d.lease_until IS NULL OR d.lease_until < clock_timestamp())
         ORDER BY d.next_attempt_at, d.seq
         LIMIT ?
         FOR UPDATE OF d SKIP LOCKED
       ), failed AS (
         UPDATE webhook_deliveries d
         SET status = 'failed', next_attempt_at = NULL, attempt_count = d.attempt_count + 1,
             first_attempt_at = COALESCE(d.first_attempt_at, ?), updated_at = ?
         FROM held
         WHERE d.id = held.id AND d.status = 'pending'
           AND (d.lease_until IS NULL OR d.lease_until < clock_timestamp())
         RETURNING d.id
       ), attempts AS (
         INSERT INTO webhook_delivery_attempts (delivery_id, attempted_at, status_code, latency_ms, error, response_excerpt)
         SELECT id, ?, NULL, NULL, ?, NULL FROM failed
       )
       SELECT d.* FROM webhook_deliveries d JOIN failed ON failed.id = d.id`,
      [
        input.now,
        input.unheldType,
        ...onlyBinding,
        cutoff,
        input.limit,
        input.now,
        input.now,
        input.now,
        input.error,
      ] as Knex.RawBinding[],
    );
    return result.rows;
  }

  /**
   * A subscription enabled again: its pending deliveries are due `now`, retries scheduled later
   * included. Answers how many are pending.
   */
  async resumeHeld(db: Db, subscriptionId: string, now: Date): Promise<number> {
    await db('webhook_deliveries')
      .where({ subscription_id: subscriptionId, status: 'pending' })
      .andWhere('next_attempt_at', '>', now)
      .update({ next_attempt_at: now, updated_at: now });
    const [{ count }] = (await db('webhook_deliveries')
      .where({ subscription_id: subscriptionId, status: 'pending' })
      .count({ count: '*' })) as [{ count: string }];
    return Number(count);
  }

  /** Deletes leased deliveries that must not be sent (the account cannot see what they are about). */
  async discard(owner: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.knex('webhook_deliveries').whereIn('id', ids).andWhere({ lease_owner: owner }).delete();
  }

  /** Gives leased deliveries back (a stopping worker that did not send them). */
  async release(owner: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.knex('webhook_deliveries')
      .whereIn('id', ids)
      .andWhere({ lease_owner: owner })
      .update({ lease_owner: null, lease_until: null });
  }

  /**
   * Records attempts and their deliveries' new state in one transaction (a batch of outcomes). A
   * delivery deleted while it was being attempted (its subscription deleted) gets no attempt row:
   * the foreign key would fail the whole batch again on every retry and stall the worker. A
   * delivery replayed while its attempt ran (its `replay_count` moved on) keeps the replay's state,
   * pending and due, and only gives its lease back: the attempt is recorded, and the replay is sent
   * (it used to be overwritten by the attempt's outcome, and lost).
   */
  async recordOutcomes(owner: string, outcomes: AttemptOutcome[]): Promise<void> {
    if (outcomes.length === 0) return;
    await this.knex.transaction(async (trx) => {
      await trx.raw(
        `INSERT INTO webhook_delivery_attempts (delivery_id, attempted_at, status_code, latency_ms, error, response_excerpt)
         SELECT u.* FROM unnest(CAST(? AS text[]), CAST(? AS timestamptz[]), CAST(? AS int[]), CAST(? AS int[]), CAST(? AS text[]), CAST(? AS text[]))
           AS u(delivery_id, attempted_at, status_code, latency_ms, error, response_excerpt)
         JOIN webhook_deliveries d ON d.id = u.delivery_id
         FOR KEY SHARE OF d`,
        [
          outcomes.map((o) => o.deliveryId),
          outcomes.map((o) => o.attempt.attempted_at),
          outcomes.map((o) => o.attempt.status_code),
          outcomes.map((o) => o.attempt.latency_ms),
          outcomes.map((o) => o.attempt.error),
          outcomes.map((o) => o.attempt.response_excerpt),
        ] as unknown as Knex.RawBinding[],
      );
      await trx.raw(
        `UPDATE webhook_deliveries d
         SET status = CASE WHEN u.same THEN u.status ELSE d.status END,
             next_attempt_at = CASE WHEN u.same THEN u.next_at ELSE d.next_attempt_at END,
             attempt_count = CASE WHEN u.same THEN d.attempt_count + 1 ELSE d.attempt_count END,
             first_attempt_at = CASE WHEN u.same THEN COALESCE(d.first_attempt_at, u.attempted_at)
                                     ELSE d.first_attempt_at END,
             lease_owner = NULL, lease_until = NULL, updated_at = u.attempted_at
         FROM (
           SELECT o.*, o.replay_count = w.replay_count AS same
           FROM unnest(CAST(? AS text[]), CAST(? AS text[]), CAST(? AS timestamptz[]), CAST(? AS timestamptz[]), CAST(? AS int[]))
             AS o(id, status, next_at, attempted_at, replay_count)
           JOIN webhook_deliveries w ON w.id = o.id
         ) u
         WHERE d.id = u.id AND d.lease_owner = ?`,
        [
          outcomes.map((o) => o.deliveryId),
          outcomes.map((o) => o.status),
          outcomes.map((o) => o.nextAttemptAt),
          outcomes.map((o) => o.attempt.attempted_at),
          outcomes.map((o) => o.replayCount),
          owner,
        ] as unknown as Knex.RawBinding[],
      );
    });
  }
}
