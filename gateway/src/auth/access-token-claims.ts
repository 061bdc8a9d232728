// The claims of an access token the gateway relies on (spec "Access token format"), checked for
// shape after the signature and the standard claims have been verified.
import type { Identity } from '@ordering/http';

export interface AccessTokenClaims {
  sub: string;
  cust_id: string;
  login: string;
  client_id: string;
  /** Space-separated granted scopes. */
  scope: string;
  jti: string;
  iat: number;
  exp: number;
  /** The id of the key that signed the token (its JOSE header), for the key's own revocation. */
  kid: string;
}

const REQUIRED_STRINGS = ['sub', 'cust_id', 'login', 'client_id', 'jti'] as const;

const isNonEmptyString = (v: unknown): v is string => typeof v === 'string' && v.length > 0;
const isSeconds = (v: unknown): v is number => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/** The claims, or undefined when one the API needs is missing or has the wrong type. */
export function accessTokenClaimsOf(payload: unknown, kid: string): AccessTokenClaims | undefined {
  if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) return undefined;
  const p = payload as Record<string, unknown>;
  if (!REQUIRED_STRINGS.every((name) => isNonEmptyString(p[name]))) return undefined;
  if (typeof p.scope !== 'string' || !isSeconds(p.iat) || !isSeconds(p.exp)) return undefined;
  return {
    sub: p.sub as string,
    cust_id: p.cust_id as string,
    login: p.login as string,
    client_id: p.client_id as string,
    scope: p.scope,
    jti: p.jti as string,
    iat: p.iat,
    exp: p.exp,
    kid,
  };
}

/** What the services learn about the caller (signed into `X-Ordering-Identity`). */
export function identityOf(claims: AccessTokenClaims): Identity {
  return {
    sub: claims.sub,
    cust_id: claims.cust_id,
    login: claims.login,
    client_id: claims.client_id,
    scopes: claims.scope.split(' ').filter((s) => s.length > 0),
    jti: claims.jti,
    exp: claims.exp,
  };
}
