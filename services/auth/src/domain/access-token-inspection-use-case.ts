// The truth about one of our JWT access tokens: signed by one of our published keys, not expired,
// not on the revocation denylist (token, subject: a revoked grant denies each of its tokens by
// jti), and obtained by a client that is still enabled.
import { jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { RevocationDenylist } from '../data-access/revocation-denylist';

export interface AccessTokenClaims {
  iss: string;
  sub: string;
  aud: string;
  exp: number;
  iat: number;
  jti: string;
  scope: string;
  client_id: string;
  cust_id: string;
  login: string;
}

export interface InspectionDeps {
  keys: () => JWTVerifyGetKey;
  issuer: string;
  audience: string;
  denylist: RevocationDenylist;
  /** Whether the client that obtained the token is still registered and enabled. */
  clientActive: (clientId: string) => Promise<boolean>;
  /** Seconds since the epoch. */
  now: () => number;
}

/** Whether a value looks like a JWS (three base64url parts): only those are ours to inspect. */
export function looksLikeJwt(token: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token);
}

/** The token's claims when it is active; undefined when it is not (for any reason). */
export async function inspectAccessToken(
  deps: InspectionDeps,
  token: string,
): Promise<AccessTokenClaims | undefined> {
  let claims: AccessTokenClaims;
  try {
    const { payload } = await jwtVerify(token, deps.keys(), {
      algorithms: ['RS256'],
      issuer: deps.issuer,
      audience: deps.audience,
      typ: 'at+jwt',
      currentDate: new Date(deps.now() * 1000),
      requiredClaims: ['exp', 'iat', 'jti', 'sub', 'client_id'],
    });
    claims = payload as unknown as AccessTokenClaims;
  } catch {
    return undefined;
  }
  if (await deps.denylist.isTokenRevoked(claims.jti)) return undefined;
  const revokedAt = await deps.denylist.subjectRevokedAt(claims.sub);
  if (revokedAt !== undefined && claims.iat <= revokedAt) return undefined;
  if (!(await deps.clientActive(claims.client_id))) return undefined;
  return claims;
}
