// Revoked tokens, read from Redis on every request (in the same script run as the rate limit,
// see token-admission.ts). The auth service writes `revoked:jti:<jti>` when a token is revoked,
// and for every live token of a grant it revokes (refresh-token replay, client disabled): its
// presence refuses the token. `revoked:sub:<sub>` is written when a user is deactivated; its value
// is unix seconds and refuses the subject's tokens issued at or before it. `revoked:client:<id>` is
// written when a client is disabled, alike for every token issued to that client (client-credentials
// tokens belong to no grant, so this is what stops them). `revoked:kid:<kid>` is written when a
// signing key leaves the JWKS before the tokens it signed have expired (a leaked key rotated with a
// short overlap): its value is unix seconds from which every token that key signed is refused, where
// the gateway's cached copy of the JWKS would otherwise keep accepting them for up to its max age.
// Writers give each key a TTL of at least the token lifetime.
import type { AccessTokenClaims } from './access-token-claims';

export class RevocationList {
  constructor(private readonly keyPrefix: string) {}

  /** The denylist keys that concern a token: its jti, its subject, its client and its signing key. */
  keysOf(claims: AccessTokenClaims): string[] {
    return [
      `${this.keyPrefix}revoked:jti:${claims.jti}`,
      `${this.keyPrefix}revoked:sub:${claims.sub}`,
      `${this.keyPrefix}revoked:client:${claims.client_id}`,
      `${this.keyPrefix}revoked:kid:${claims.kid}`,
    ];
  }

  /** Whether the values read at `keysOf(claims)` (null where missing) refuse the token. */
  refuses(claims: AccessTokenClaims, values: readonly (string | null | undefined)[]): boolean {
    const [jti, sub, client, kid] = values;
    return (
      jti != null ||
      issuedNoLaterThan(claims.iat, sub) ||
      issuedNoLaterThan(claims.iat, client) ||
      refusedFromNow(kid)
    );
  }
}

/** A cut-off in unix seconds; a value that is not a number refuses every token of the subject. */
function issuedNoLaterThan(iat: number, cutoff: string | null | undefined): boolean {
  if (cutoff == null) return false;
  const seconds = Number(cutoff);
  return Number.isFinite(seconds) ? iat <= seconds : true;
}

/** A signing key's mark: unix seconds from which its tokens are refused (not a number: at once). */
function refusedFromNow(from: string | null | undefined): boolean {
  if (from == null) return false;
  const seconds = Number(from);
  return Number.isFinite(seconds) ? Date.now() / 1000 >= seconds : true;
}
