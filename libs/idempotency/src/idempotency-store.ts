// Idempotency keys of creating POSTs (decisions.md "Idempotency"), kept in the owning service's
// database. Generic: nothing here knows what is being created, so it can move to a shared library.
//
// A request first *claims* its (scope, key) in a short transaction of its own: a concurrent retry
// then sees the claim and gets 409 `idempotency_key_in_use`. The creating transaction *completes*
// the claim with the response it is about to send, so the stored response commits (or rolls back)
// together with the resource. A failed request *releases* its claim so that a retry runs again.
// A claim left behind by a crashed process may be taken over after `lockTimeoutMs`. Each claim is
// fenced by its `locked_at`: a request whose claim was taken over (it ran longer than the timeout)
// can neither complete the key (its creating transaction fails with 409, so the resource is not
// created a second time) nor release it (the newer claim stays).
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { IdempotencyError } from '@ordering/errors';

export const IDEMPOTENCY_TABLE = 'idempotency_keys';

export const idempotencyMigration = {
  name: '20261122000300_idempotency_keys',
  async up(knex: Knex): Promise<void> {
    await knex.schema.createTable(IDEMPOTENCY_TABLE, (t) => {
      t.text('scope').notNullable();
      t.text('key').notNullable();
      t.text('fingerprint').notNullable();
      t.text('state').notNullable();
      t.integer('response_status').nullable();
      t.jsonb('response_body').nullable();
      t.timestamp('locked_at', { useTz: true }).notNullable();
      t.timestamp('expires_at', { useTz: true }).notNullable();
      t.primary(['scope', 'key']);
      t.index(['expires_at']);
    });
  },
  async down(knex: Knex): Promise<void> {
    await knex.schema.dropTable(IDEMPOTENCY_TABLE);
  },
};

/**
 * The stored response as its text: `json` keeps the body as written (key order included), so a
 * replay answers the original bytes; `jsonb` reordered the keys of every object. Its name sorts
 * after every service's own migrations so far: each lists it last.
 */
export const idempotencyVerbatimResponseMigration = {
  name: '20261124030000_idempotency_verbatim_response',
  async up(knex: Knex): Promise<void> {
    await knex.raw(`alter table ?? alter column response_body type json using response_body::json`, [
      IDEMPOTENCY_TABLE,
    ]);
  },
  async down(knex: Knex): Promise<void> {
    await knex.raw(`alter table ?? alter column response_body type jsonb using response_body::jsonb`, [
      IDEMPOTENCY_TABLE,
    ]);
  },
};

export interface StoredResponse {
  status: number;
  body: unknown;
}

/** A claim this request holds; `lockedAt` tells it apart from a later claim that took the key over. */
export interface HeldClaim {
  kind: 'claimed';
  lockedAt: Date;
}

export type IdempotencyClaim = HeldClaim | { kind: 'replay'; response: StoredResponse };

export interface IdempotencyStoreOptions {
  /** How long a key is remembered; default 24 h. */
  ttlMs?: number;
  /** After this long a claim that never completed may be taken over; default 60 s. */
  lockTimeoutMs?: number;
  now?: () => Date;
}

/** A stable fingerprint of what a request asks for: method, path and the JSON body (key order ignored). */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256')
    .update(`${method.toUpperCase()} ${path}\n${canonicalJson(body ?? null)}`)
    .digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

interface KeyRow {
  fingerprint: string;
  state: 'running' | 'done';
  response_status: number | null;
  response_body: unknown;
  locked_at: Date;
  expires_at: Date;
}

export class IdempotencyStore {
  private readonly ttlMs: number;
  private readonly lockTimeoutMs: number;
  private readonly now: () => Date;

  constructor(
    private readonly knex: Knex,
    options: IdempotencyStoreOptions = {},
  ) {
    this.ttlMs = options.ttlMs ?? 24 * 60 * 60 * 1000;
    this.lockTimeoutMs = options.lockTimeoutMs ?? 60_000;
    this.now = options.now ?? (() => new Date());
  }

  /**
   * Claims the key for a new request, or answers the stored response of an earlier one.
   * Throws 422 `idempotency_key_reused` for another request under the same key, 409
   * `idempotency_key_in_use` while the first request is still running.
   */
  async claim(scope: string, key: string, fingerprint: string): Promise<IdempotencyClaim> {
    const now = this.now();
    // A new key (the usual case) is one statement on its own; a key seen before is looked at
    // under a row lock in a transaction.
    const inserted = await this.knex(IDEMPOTENCY_TABLE)
      .insert({
        scope,
        key,
        fingerprint,
        state: 'running',
        locked_at: now,
        expires_at: new Date(now.getTime() + this.ttlMs),
      })
      .onConflict(['scope', 'key'])
      .ignore()
      .returning('key');
    if (inserted.length > 0) return { kind: 'claimed', lockedAt: now };

    return this.knex.transaction(async (trx) => {
      const row = (await trx(IDEMPOTENCY_TABLE).where({ scope, key }).forUpdate().first()) as
        KeyRow | undefined;
      if (!row)
        throw new IdempotencyError(
          'idempotency_key_in_use',
          'A request with this Idempotency-Key is running',
        );
      const expired = row.expires_at.getTime() <= now.getTime();
      const abandoned =
        row.state === 'running' && row.locked_at.getTime() + this.lockTimeoutMs <= now.getTime();
      if (expired || abandoned) {
        await trx(IDEMPOTENCY_TABLE)
          .where({ scope, key })
          .update({
            fingerprint,
            state: 'running',
            response_status: null,
            response_body: null,
            locked_at: now,
            expires_at: expired ? new Date(now.getTime() + this.ttlMs) : row.expires_at,
          });
        return { kind: 'claimed', lockedAt: now } as const;
      }
      if (row.fingerprint !== fingerprint) {
        throw new IdempotencyError(
          'idempotency_key_reused',
          'This Idempotency-Key was already used for a different request; use a new key',
        );
      }
      if (row.state === 'running') {
        throw new IdempotencyError(
          'idempotency_key_in_use',
          'A request with this Idempotency-Key is still being processed; retry later',
        );
      }
      return {
        kind: 'replay',
        response: { status: row.response_status ?? 200, body: row.response_body },
      } as const;
    });
  }

  /**
   * Stores the response inside the transaction that creates the resource. Throws 409
   * `idempotency_key_in_use` (failing that transaction) when `claim` is no longer this key's: another
   * request took it over meanwhile and creates the resource itself.
   */
  async complete(
    trx: Knex.Transaction,
    scope: string,
    key: string,
    response: StoredResponse,
    claim: HeldClaim,
  ): Promise<void> {
    const updated = await trx(IDEMPOTENCY_TABLE)
      .where({ scope, key, state: 'running', locked_at: claim.lockedAt })
      .update({
        state: 'done',
        response_status: response.status,
        response_body: JSON.stringify(response.body),
      });
    if (updated === 0) {
      throw new IdempotencyError(
        'idempotency_key_in_use',
        'Another request with this Idempotency-Key took over while this one ran; retry to get its answer',
      );
    }
  }

  /** Forgets a claim whose request failed, so that a retry runs again (not a later request's claim). */
  async release(scope: string, key: string, claim: HeldClaim): Promise<void> {
    await this.knex(IDEMPOTENCY_TABLE)
      .where({ scope, key, state: 'running', locked_at: claim.lockedAt })
      .delete();
  }

  /** Deletes expired keys; returns how many. */
  async purgeExpired(): Promise<number> {
    return this.knex(IDEMPOTENCY_TABLE).where('expires_at', '<=', this.now()).delete();
  }
}
