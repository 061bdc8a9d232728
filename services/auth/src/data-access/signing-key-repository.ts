// Token signing keys: the public JWK in clear, the private JWK encrypted (AES-256-GCM) at rest.
import type { Knex } from 'knex';
import { takeTransactionLock } from '@ordering/db';
import type { StoredSigningKey } from '../domain/signing-key';

export const SIGNING_KEYS_TABLE = 'signing_keys';

interface SigningKeyRow {
  kid: string;
  alg: string;
  public_jwk: Record<string, unknown>;
  private_jwk_encrypted: string;
  status: 'active' | 'retired';
  created_at: Date;
  retired_at: Date | null;
  publish_until: Date | null;
}

function toKey(row: SigningKeyRow): StoredSigningKey {
  return {
    kid: row.kid,
    alg: row.alg,
    publicJwk: row.public_jwk,
    privateJwkEncrypted: row.private_jwk_encrypted,
    status: row.status,
    createdAt: row.created_at,
    retiredAt: row.retired_at,
    publishUntil: row.publish_until,
  };
}

export class SigningKeyRepository {
  constructor(private readonly knex: Knex) {}

  /** Keys still published at `now`: the active one first, then retired ones, newest first. */
  async listPublished(now: Date): Promise<StoredSigningKey[]> {
    const rows = (await this.knex(SIGNING_KEYS_TABLE)
      .where((q) => q.where({ status: 'active' }).orWhere('publish_until', '>', now))
      .orderByRaw("status = 'active' desc, created_at desc")) as SigningKeyRow[];
    return rows.map(toKey);
  }

  async listAll(): Promise<StoredSigningKey[]> {
    const rows = (await this.knex(SIGNING_KEYS_TABLE).orderBy('created_at', 'desc')) as SigningKeyRow[];
    return rows.map(toKey);
  }

  /**
   * In one transaction (a lock serialises concurrent first starts and rotations), makes `key` the
   * signing key: the active one retires, published until `publishUntil`, and a key retired earlier
   * and published beyond that is cut to it too, so that no key but the new one outlives the
   * overlap (a leaked key store exposes every key in it, not only the active one). Answers the kids
   * whose publication now ends at `publishUntil`, or null when `onlyIfNone` and a key is active
   * already.
   */
  async activate(key: StoredSigningKey, publishUntil: Date, onlyIfNone = false): Promise<string[] | null> {
    return this.knex.transaction(async (trx) => {
      await takeTransactionLock(trx, SIGNING_KEYS_TABLE);
      const active = await trx(SIGNING_KEYS_TABLE).where({ status: 'active' }).first();
      if (onlyIfNone && active) return null;
      const retired: { kid: string }[] = await trx(SIGNING_KEYS_TABLE)
        .where({ status: 'active' })
        .update({ status: 'retired', retired_at: key.createdAt, publish_until: publishUntil })
        .returning('kid');
      // A first start (`onlyIfNone`) found no active key: nothing retired to cut.
      const cut: { kid: string }[] = onlyIfNone
        ? []
        : await trx(SIGNING_KEYS_TABLE)
            .where({ status: 'retired' })
            .andWhere('publish_until', '>', publishUntil)
            .whereNotIn(
              'kid',
              retired.map((r) => r.kid),
            )
            .update({ publish_until: publishUntil })
            .returning('kid');
      await trx(SIGNING_KEYS_TABLE).insert({
        kid: key.kid,
        alg: key.alg,
        public_jwk: JSON.stringify(key.publicJwk),
        private_jwk_encrypted: key.privateJwkEncrypted,
        status: 'active',
        created_at: key.createdAt,
        retired_at: null,
        publish_until: null,
      });
      return [...retired, ...cut].map((r) => r.kid);
    });
  }
}
