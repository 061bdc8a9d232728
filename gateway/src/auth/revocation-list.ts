// Revoked tokens, read from Redis on every request (in the same script run as the rate limit,
// see token-admission.ts). The auth service writes `revoked:jti:<jti>` when a token is revoked and
// `revoked:grant:<gid>` when a whole grant is (refresh-token replay, consent withdrawn): their
// presence refuses the token. `revoked:sub:<sub>` is written when a user is deactivated; its value
// is unix seconds and refuses the subject's tokens issued at or before it. Writers give each key a
// TTL of at least the token lifetime.
import type { AccessTokenClaims } from './access-token-claims';

export class RevocationList {
  constructor(private readonly keyPrefix: string) {}

  /** The denylist keys that concern a token: jti, sub, then grant when the token has one. */
  keysOf(claims: AccessTokenClaims): string[] {
    const keys = [`${this.keyPrefix}revoked:jti:${claims.jti}`, `${this.keyPrefix}revoked:sub:${claims.sub}`];
    if (claims.grant_id !== undefined) keys.push(`${this.keyPrefix}revoked:grant:${claims.grant_id}`);
    return keys;
  }

  /** Whether the values read at `keysOf(claims)` (null where missing) refuse the token. */
  refuses(claims: AccessTokenClaims, values: readonly (string | null | undefined)[]): boolean {
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
