// webhook_subscriptions and webhook_secrets rows. Secrets are stored sealed (SecretBox); a
// rotated-out secret keeps an `expires_at` 24 h ahead and signs until then (each its own 24 h).
import type { Knex } from 'knex';
import { takeTransactionLock } from '@ordering/db';

export type SubscriptionStatus = 'enabled' | 'disabled';
export type SubscriptionOrdering = 'none' | 'per_resource';

export interface SubscriptionRow {
  id: string;
  cust_id: string;
  url: string;
  events: string[];
  description: string | null;
  status: SubscriptionStatus;
  ordering: SubscriptionOrdering;
  created_at: Date;
}

export interface SubscriptionChanges {
  url?: string;
  events?: string[];
  description?: string | null;
  status?: SubscriptionStatus;
  ordering?: SubscriptionOrdering;
}

type Db = Knex | Knex.Transaction;

export class SubscriptionRepository {
  constructor(private readonly knex: Knex) {}

  async insert(trx: Knex.Transaction, row: SubscriptionRow, sealedSecret: string): Promise<void> {
    await trx('webhook_subscriptions').insert(row);
    await trx('webhook_secrets').insert({
      subscription_id: row.id,
      secret_encrypted: sealedSecret,
      created_at: row.created_at,
      expires_at: null,
    });
  }

  /** How many subscriptions the account has, holding its creation lock until `trx` ends. */
  async lockAndCount(trx: Knex.Transaction, custId: string): Promise<number> {
    await takeTransactionLock(trx, `webhook_subscriptions:${custId}`);
    const [{ count }] = (await trx('webhook_subscriptions')
      .where({ cust_id: custId })
      .count({ count: '*' })) as [{ count: string }];
    return Number(count);
  }

  /** The account's subscriptions, oldest first, after `afterId` (ids sort by creation). */
  list(custId: string, options: { afterId?: string; limit: number }): Promise<SubscriptionRow[]> {
    const q = this.knex<SubscriptionRow>('webhook_subscriptions').where({ cust_id: custId });
    if (options.afterId !== undefined) q.andWhere('id', '>', options.afterId);
    return q.orderBy('id').limit(options.limit);
  }

  find(custId: string, id: string, db: Db = this.knex): Promise<SubscriptionRow | undefined> {
    return db<SubscriptionRow>('webhook_subscriptions').where({ cust_id: custId, id }).first();
  }

  /**
   * The account's subscription, locked until `trx` ends: `update` for a change of its secrets,
   * `noKeyUpdate` for a change of its row (deliveries may still be written for it meanwhile),
   * `keyShare` for rows that point at it. A subscription deleted meanwhile is undefined (after the
   * deleting transaction ends), never a foreign-key failure later in the transaction.
   */
  findLocked(
    trx: Knex.Transaction,
    custId: string,
    id: string,
    mode: 'update' | 'noKeyUpdate' | 'keyShare',
  ): Promise<SubscriptionRow | undefined> {
    const q = trx<SubscriptionRow>('webhook_subscriptions').where({ cust_id: custId, id });
    if (mode === 'update') return q.forUpdate().first();
    return (mode === 'noKeyUpdate' ? q.forNoKeyUpdate() : q.forKeyShare()).first();
  }

  async findByIds(ids: string[]): Promise<Map<string, SubscriptionRow>> {
    const rows = await this.knex<SubscriptionRow>('webhook_subscriptions').whereIn('id', ids);
    return new Map(rows.map((r) => [r.id, r as SubscriptionRow]));
  }

  async update(
    custId: string,
    id: string,
    changes: SubscriptionChanges,
    db: Db = this.knex,
  ): Promise<SubscriptionRow | undefined> {
    const set: Record<string, unknown> = { ...changes };
    if (Object.keys(set).length === 0) return this.find(custId, id, db);
    const [row] = await db<SubscriptionRow>('webhook_subscriptions')
      .where({ cust_id: custId, id })
      .update(set)
      .returning('*');
    return row as SubscriptionRow | undefined;
  }

  async delete(custId: string, id: string): Promise<boolean> {
    return (await this.knex('webhook_subscriptions').where({ cust_id: custId, id }).delete()) > 0;
  }

  /**
   * Makes `sealedSecret` the current secret; the one it replaces signs until `overlapUntil`. Every
   * other rotated-out secret keeps its own 24 h, except that at most `maxSigning` secrets sign at
   * once: past that, the oldest rotated-out ones stop at once. Secrets whose overlap has ended are
   * deleted.
   */
  async rotate(
    trx: Knex.Transaction,
    id: string,
    sealedSecret: string,
    now: Date,
    overlapUntil: Date,
    maxSigning: number,
  ): Promise<void> {
    await trx('webhook_secrets').where({ subscription_id: id }).andWhere('expires_at', '<=', now).delete();
    await trx('webhook_secrets')
      .where({ subscription_id: id })
      .whereNull('expires_at')
      .update({ expires_at: overlapUntil });
    await trx('webhook_secrets').insert({
      subscription_id: id,
      secret_encrypted: sealedSecret,
      created_at: now,
      expires_at: null,
    });
    const kept = trx('webhook_secrets')
      .select('id')
      .where({ subscription_id: id })
      .whereNotNull('expires_at')
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(maxSigning - 1);
    await trx('webhook_secrets')
      .where({ subscription_id: id })
      .whereNotNull('expires_at')
      .whereNotIn('id', kept)
      .delete();
  }

  /** Sealed secrets that sign at `now`, the current one first. */
  async activeSecrets(subscriptionIds: string[], now: Date): Promise<Map<string, string[]>> {
    const rows = (await this.knex('webhook_secrets')
      .whereIn('subscription_id', subscriptionIds)
      .andWhere((q) => q.whereNull('expires_at').orWhere('expires_at', '>', now))
      .orderBy([
        { column: 'subscription_id' },
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])) as {
      subscription_id: string;
      secret_encrypted: string;
    }[];
    const bySubscription = new Map<string, string[]>();
    for (const r of rows) {
      const list = bySubscription.get(r.subscription_id) ?? [];
      list.push(r.secret_encrypted);
      bySubscription.set(r.subscription_id, list);
    }
    return bySubscription;
  }

  /** Enabled subscriptions of any account that asked for `type`. */
  receiversOfType(trx: Db, type: string): Promise<SubscriptionRow[]> {
    return trx<SubscriptionRow>('webhook_subscriptions')
      .where({ status: 'enabled' })
      .andWhereRaw('? = ANY(events)', [type]);
  }

  /**
   * Enabled subscriptions of any of `custIds` that asked for any of `types`. `alongWith`: a
   * data-modifying statement run in the same statement (`with ... as (insert ...)`), one round trip.
   */
  receiversOfAny(
    trx: Db,
    custIds: string[],
    types: string[],
    alongWith?: Knex.QueryBuilder,
  ): Promise<SubscriptionRow[]> {
    const q = trx<SubscriptionRow>('webhook_subscriptions')
      .whereIn('cust_id', custIds)
      .andWhere({ status: 'enabled' })
      .andWhereRaw('events && ?::text[]', [types]);
    return alongWith ? q.with('written', alongWith) : q;
  }
}
