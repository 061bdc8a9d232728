// Revoked tokens, read from Redis on every request (in the same script run as the rate limit,
// see token-admission.ts). The auth service writes `revoked:jti:<jti>` when a token is revoked,
// and for every live token of a grant it revokes (refresh-token replay, client disabled): its
// presence refuses the token. `revoked:sub:<sub>` is written when a user is deactivated; its value
// is unix seconds and refuses the subject's tokens issued at or before it. `revoked:client:<id>` is
// written when a client is disabled, alike for every token issued to that client (client-credentials
// tokens belong to no grant, so this is what stops them). Writers give each key a TTL of at least
// the token lifetime.
import type { AccessTokenClaims } from './access-token-claims';

export class RevocationList {
  constructor(private readonly keyPrefix: string) {}

  /** The denylist keys that concern a token: its jti, its subject and its client. */
  keysOf(claims: AccessTokenClaims): string[] {
    return [
      `${this.keyPrefix}revoked:jti:${claims.jti}`,
      `${this.keyPrefix}revoked:sub:${claims.sub}`,
      `${this.keyPrefix}revoked:client:${claims.client_id}`,
    ];
  }

  /** Whether the values read at `keysOf(claims)` (null where missing) refuse the token. */
  refuses(claims: AccessTokenClaims, values: readonly (string | null | undefined)[]): boolean {
    const [jti, sub, client] = values;
    return jti != null || issuedNoLaterThan(claims.iat, sub) || issuedNoLaterThan(claims.iat, client);
  }
}

/** A cut-off in unix seconds; a value that is not a number refuses every token of the subject. */
function issuedNoLaterThan(iat: number, cutoff: string | null | undefined): boolean {
  if (cutoff == null) return false;
  const seconds = Number(cutoff);
  return Number.isFinite(seconds) ? iat <= seconds : true;
}
