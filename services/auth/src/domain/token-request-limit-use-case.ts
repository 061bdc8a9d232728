// The token endpoint's limit (README, "Token endpoint limits"): every token request that would be
// signed takes from a token bucket, before anything is signed or written, so that minting a fresh
// token cannot bypass the gateway's per-token limit and cannot burn this service's CPU.
//
// - client_credentials: one bucket per client.
// - authorization_code, refresh_token: one bucket per client and end user (the account the code or
//   refresh token was issued for), so that one web client serving many users (the developer
//   portal) is not throttled as a whole, and a user cannot multiply buckets by opening new grants.
// - a request whose client authentication fails: one bucket per client id named, apart from the
//   client's own, so that guessing a secret is bounded and cannot lock the real client out.
// Knowing the bucket costs the client check (one client read and an HMAC, no signature) and, for a
// code or refresh token, one indexed read of it; a refused request does nothing else.
import { createHash } from 'node:crypto';
import type { ClientRepository } from '../data-access/client-repository';
import type { TokenBucketParams, TokenRequestThrottle } from '../data-access/token-request-throttle';
import {
  authenticateClient,
  presentedClientId,
  type ClientCredentialsInput,
} from './client-authentication-use-case';
import { OAuthError } from './oauth-error';

export type TokenBucketKind = 'client' | 'user' | 'failed_authentication';

export type TokenEndpointLimits = Record<TokenBucketKind, TokenBucketParams>;

export interface TokenRequest extends ClientCredentialsInput {
  grantType: string | undefined;
  code: string | undefined;
  refreshToken: string | undefined;
}

export type UserGrantType = 'authorization_code' | 'refresh_token';

export interface TokenRequestLimitDeps {
  clients: ClientRepository;
  secretKey: string;
  issuer: string;
  /** The account (`sub`) an authorization code or refresh token was issued for; undefined when unknown. */
  accountOf(grantType: UserGrantType, value: string): Promise<string | undefined>;
  throttle: TokenRequestThrottle;
  limits: TokenEndpointLimits;
}

export type TokenRequestAdmission =
  | { allowed: true; bucket: TokenBucketKind | undefined }
  | { allowed: false; bucket: TokenBucketKind; clientId: string; retryAfterSeconds: number };

/** A key part: readable, without the separator, bounded in length (an unknown client id is anyone's text). */
function part(value: string): string {
  const encoded = encodeURIComponent(value);
  return encoded.length <= 128 ? encoded : `sha256-${createHash('sha256').update(value).digest('hex')}`;
}

async function bucketOf(
  deps: TokenRequestLimitDeps,
  request: TokenRequest,
): Promise<{ kind: TokenBucketKind; key: string; clientId: string } | undefined> {
  let clientId: string;
  try {
    ({ clientId } = await authenticateClient(
      { clients: deps.clients, secretKey: deps.secretKey, issuer: deps.issuer },
      request,
    ));
  } catch (err) {
    if (!(err instanceof OAuthError)) throw err;
    // No client named: nothing to count it against; the provider refuses it at once.
    const named = presentedClientId(request);
    return named === undefined
      ? undefined
      : { kind: 'failed_authentication', key: `failed-authentication:${part(named)}`, clientId: named };
  }
  if (request.grantType === 'client_credentials')
    return { kind: 'client', key: `client:${part(clientId)}`, clientId };
  const grantType = request.grantType;
  const value =
    grantType === 'authorization_code'
      ? request.code
      : grantType === 'refresh_token'
        ? request.refreshToken
        : undefined;
  if (grantType === undefined || value === undefined || value === '') return undefined;
  // An unknown, expired or malformed code or refresh token is refused by the provider after the same
  // read, signing and writing nothing; a used one is still found (its replay revokes the grant).
  const account = await deps.accountOf(grantType as UserGrantType, value);
  if (account === undefined) return undefined;
  return { kind: 'user', key: `user:${part(clientId)}:${part(account)}`, clientId };
}

/** Takes from the request's bucket; a refusal says which bucket and when to retry. */
export async function admitTokenRequest(
  deps: TokenRequestLimitDeps,
  request: TokenRequest,
): Promise<TokenRequestAdmission> {
  const bucket = await bucketOf(deps, request);
  if (!bucket) return { allowed: true, bucket: undefined };
  const taken = await deps.throttle.take(bucket.key, deps.limits[bucket.kind]);
  return taken.allowed
    ? { allowed: true, bucket: bucket.kind }
    : {
        allowed: false,
        bucket: bucket.kind,
        clientId: bucket.clientId,
        retryAfterSeconds: taken.retryAfterSeconds,
      };
}
