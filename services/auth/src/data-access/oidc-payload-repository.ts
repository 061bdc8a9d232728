// oidc-provider's storage adapter on PostgreSQL: one table of JSON payloads keyed by model name
// and id, with the indexes the provider looks things up by (grant id, session uid, user code).
// Expired rows are never returned and are purged by `purgeExpired`.
import { isUnsafeText } from '@ordering/http';
import type { Knex } from 'knex';
import { type Adapter, type AdapterPayload, errors } from 'oidc-provider';

export const OIDC_PAYLOADS_TABLE = 'oidc_payloads';

/** Models whose rows carry a grant id and are removed when that grant is revoked. */
const GRANTABLE = new Set([
  'AccessToken',
  'AuthorizationCode',
  'RefreshToken',
  'DeviceCode',
  'ClientCredentials',
  'Grant',
  'BackchannelAuthenticationRequest',
]);

interface PayloadRow {
  payload: AdapterPayload;
  consumed_at: Date | null;
}

export class OidcPayloadRepository implements Adapter {
  constructor(
    private readonly knex: Knex,
    private readonly model: string,
    private readonly now: () => Date = () => new Date(),
    /** Called (and awaited) after a Grant row is destroyed: the provider revoked that grant. */
    private readonly onGrantDestroyed?: (grantId: string) => Promise<void>,
  ) {}

  async upsert(id: string, payload: AdapterPayload, expiresIn: number): Promise<void> {
    const row = {
      model: this.model,
      id,
      payload: JSON.stringify(payload),
      grant_id: GRANTABLE.has(this.model) ? (payload.grantId ?? null) : null,
      uid: payload.uid ?? null,
      user_code: payload.userCode ?? null,
      expires_at: expiresIn ? new Date(this.now().getTime() + expiresIn * 1000) : null,
      consumed_at: null,
    };
    await this.knex(OIDC_PAYLOADS_TABLE).insert(row).onConflict(['model', 'id']).merge();
  }

  find(id: string): Promise<AdapterPayload | undefined> {
    return this.findBy('id', id);
  }

  findByUid(uid: string): Promise<AdapterPayload | undefined> {
    return this.findBy('uid', uid);
  }

  findByUserCode(userCode: string): Promise<AdapterPayload | undefined> {
    return this.findBy('user_code', userCode);
  }

  /**
   * Marks a single-use value (authorization code, refresh token) used, once: the provider reads it,
   * checks that it is unused, then calls this, so two requests presenting it at once both passed
   * the check. The one whose write finds it already used has replayed it, as if it came after the
   * fact: the grant is revoked (every row of it, and its access tokens denied) and the request
   * answers `invalid_grant`, never a second set of tokens.
   */
  async consume(id: string): Promise<void> {
    if (isUnsafeText(id)) return;
    const marked = (await this.knex(OIDC_PAYLOADS_TABLE)
      .where({ model: this.model, id })
      .whereNull('consumed_at')
      .update({ consumed_at: this.now() })
      .returning('id')) as unknown[];
    if (marked.length > 0) return;
    const row = (await this.knex(OIDC_PAYLOADS_TABLE)
      .select('grant_id')
      .where({ model: this.model, id })
      .first()) as { grant_id: string | null } | undefined;
    if (row?.grant_id) await this.revokeGrant(row.grant_id);
    throw new errors.InvalidGrant(`${this.model} already used`);
  }

  /** What the provider's grant revocation does: every row of the grant, then the denylist. */
  private async revokeGrant(grantId: string): Promise<void> {
    await this.knex(OIDC_PAYLOADS_TABLE).where({ grant_id: grantId }).delete();
    await this.onGrantDestroyed?.(grantId);
  }

  async destroy(id: string): Promise<void> {
    if (isUnsafeText(id)) return;
    await this.knex(OIDC_PAYLOADS_TABLE).where({ model: this.model, id }).delete();
    if (this.model === 'Grant') await this.onGrantDestroyed?.(id);
  }

  async revokeByGrantId(grantId: string): Promise<void> {
    if (isUnsafeText(grantId)) return;
    await this.knex(OIDC_PAYLOADS_TABLE).where({ model: this.model, grant_id: grantId }).delete();
  }

  private async findBy(
    column: 'id' | 'uid' | 'user_code',
    value: string,
  ): Promise<AdapterPayload | undefined> {
    // A presented code, token or uid holding a NUL or a lone surrogate was never issued (and
    // PostgreSQL would refuse the byte): unknown, so the provider answers invalid_grant.
    if (typeof value !== 'string' || isUnsafeText(value)) return undefined;
    const row = (await this.knex(OIDC_PAYLOADS_TABLE)
      .select('payload', 'consumed_at')
      .where({ model: this.model, [column]: value })
      .andWhere((q) => q.whereNull('expires_at').orWhere('expires_at', '>', this.now()))
      .first()) as PayloadRow | undefined;
    if (!row) return undefined;
    return row.consumed_at
      ? { ...row.payload, consumed: Math.floor(row.consumed_at.getTime() / 1000) }
      : row.payload;
  }
}

/**
 * The account (`sub`) an authorization code or refresh token was issued for, used or not; undefined
 * when there is no such live value. One indexed read.
 */
export async function accountOfGrantValue(
  knex: Knex,
  model: 'AuthorizationCode' | 'RefreshToken',
  value: string,
): Promise<string | undefined> {
  const payload = await new OidcPayloadRepository(knex, model).find(value);
  return typeof payload?.accountId === 'string' ? payload.accountId : undefined;
}

/** Deletes expired rows; returns how many. */
export async function purgeExpired(knex: Knex, now = new Date()): Promise<number> {
  return knex(OIDC_PAYLOADS_TABLE).where('expires_at', '<=', now).delete();
}

/**
 * Deletes every grant of an account and the tokens, codes and sessions bound to them; returns the
 * grant ids (so that their access tokens can be denied too).
 */
export async function deleteGrantsOfAccount(knex: Knex, accountId: string): Promise<string[]> {
  const grants = (await knex(OIDC_PAYLOADS_TABLE)
    .select('id')
    .where({ model: 'Grant' })
    .andWhereRaw("payload->>'accountId' = ?", [accountId])) as { id: string }[];
  const ids = grants.map((g) => g.id);
  if (ids.length) await knex(OIDC_PAYLOADS_TABLE).whereIn('grant_id', ids).delete();
  await knex(OIDC_PAYLOADS_TABLE).where({ model: 'Grant' }).whereIn('id', ids).delete();
  await knex(OIDC_PAYLOADS_TABLE)
    .where({ model: 'Session' })
    .andWhereRaw("payload->>'accountId' = ?", [accountId])
    .delete();
  return ids;
}

/** Deletes every grant of a client and what is bound to them; returns the grant ids. */
export async function deleteGrantsOfClient(knex: Knex, clientId: string): Promise<string[]> {
  const grants = (await knex(OIDC_PAYLOADS_TABLE)
    .select('id')
    .where({ model: 'Grant' })
    .andWhereRaw("payload->>'clientId' = ?", [clientId])) as { id: string }[];
  const ids = grants.map((g) => g.id);
  if (ids.length) {
    await knex(OIDC_PAYLOADS_TABLE).whereIn('grant_id', ids).delete();
    await knex(OIDC_PAYLOADS_TABLE).where({ model: 'Grant' }).whereIn('id', ids).delete();
  }
  return ids;
}
