// Revoked tokens, read from Redis on every request (one MGET). The auth service writes
// `revoked:jti:<jti>` when a token is revoked and `revoked:grant:<gid>` when a whole grant is
// (refresh-token replay, consent withdrawn): their presence refuses the token. `revoked:sub:<sub>`
// is written when a user is deactivated; its value is unix seconds and refuses the subject's tokens
// issued at or before it. Writers give each key a TTL of at least the token lifetime.
import type { RedisConnection } from '../redis-connection';
import type { AccessTokenClaims } from './access-token-claims';

export class RevocationList {
  constructor(
    private readonly connection: RedisConnection,
    private readonly keyPrefix: string,
  ) {}

  keysOf(claims: AccessTokenClaims): { jti: string; sub: string; grant?: string } {
    return {
      jti: `${this.keyPrefix}revoked:jti:${claims.jti}`,
      sub: `${this.keyPrefix}revoked:sub:${claims.sub}`,
      ...(claims.grant_id === undefined
        ? {}
        : { grant: `${this.keyPrefix}revoked:grant:${claims.grant_id}` }),
    };
  }

  /**
   * Whether the token is revoked. While Redis is unavailable this answers false (the gateway keeps
   * serving; the outage is logged and shown by /readyz).
   */
  async isRevoked(claims: AccessTokenClaims): Promise<boolean> {
    if (!this.connection.usable()) return false;
    const keys = this.keysOf(claims);
    let values: (string | null)[];
    try {
      values = await this.connection.redis.mget(keys.jti, keys.sub, ...(keys.grant ? [keys.grant] : []));
      this.connection.health.succeeded();
    } catch (err) {
      this.connection.health.failed(err);
      return false;
    }
    const [jti, sub, grant] = values;
    return jti != null || grant != null || issuedNoLaterThan(claims.iat, sub);
  }
}

/** A cut-off in unix seconds; a value that is not a number refuses every token of the subject. */
function issuedNoLaterThan(iat: number, cutoff: string | null | undefined): boolean {
  if (cutoff == null) return false;
  const seconds = Number(cutoff);
  return Number.isFinite(seconds) ? iat <= seconds : true;
}
