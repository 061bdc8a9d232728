// What the gateway does with a request under /v1 or /scim/v2: find its route, authenticate the bearer token,
// check revocation and the rate limit (one Redis round trip), check the scope, then forward it to
// the service with the caller's identity signed into a header.
import type { RequestHandler } from 'express';
import { AuthenticationError, RateLimitError, UnavailableError } from '@ordering/errors';
import { bearerTokenOf } from './auth/bearer-token';
import { assertScopes } from './auth/scope-policy';
import { SignedIdentities } from './auth/signed-identity';
import type { TokenAdmission } from './auth/token-admission';
import type { TokenVerifier } from './auth/token-verifier';
import { upstreamRequestHeaders } from './proxy/forwarded-headers';
import { forwardRequest } from './proxy/forward-request';
import type { UpstreamPools } from './proxy/upstream-pools';
import { setRateLimitHeaders } from './rate-limit/rate-limit-headers';
import { MethodNotAllowedError, type RouteMatcher } from './route-matcher';

export interface ApiRequestDeps {
  matcher: RouteMatcher;
  verifier: TokenVerifier;
  /** Revocation and rate limit, one Redis round trip. */
  admission: TokenAdmission;
  pools: UpstreamPools;
  /** Routes the gateway answers itself, by path. */
  ownRoutes: Record<string, RequestHandler>;
  identitySecret: string;
  upstreamTimeoutMs: number;
  bodyLimitBytes: number;
  trustProxy: boolean;
}

export function apiRequestHandler(deps: ApiRequestDeps): RequestHandler {
  const identities = new SignedIdentities(deps.identitySecret);
  return async (req, res, next) => {
    const match = deps.matcher.match(req.method, req.path);
    if (match.kind === 'none') return next(); // the app's 404 resource_missing
    if (match.kind === 'wrong_method') throw new MethodNotAllowedError(req.method, req.path, match.allow);
    const { route } = match;
    if (route.service === 'gateway') {
      const own = deps.ownRoutes[route.path];
      if (!own) throw new Error(`No handler for the gateway's own route ${route.path}`);
      return own(req, res, next);
    }

    const claims = await deps.verifier.verify(bearerTokenOf(req.headers.authorization));
    const { revoked, bucket } = await deps.admission.admit(claims);
    setRateLimitHeaders(res, deps.admission.rateLimiter.params.refillPerSecond, bucket);
    if (revoked) throw new AuthenticationError('The bearer token has been revoked');
    if (!bucket.allowed) throw new RateLimitError(bucket.retryAfterSeconds);
    const { identity, header: signedIdentity } = identities.of(claims);
    assertScopes(identity, route.scopes);

    const pool = deps.pools.get(route.service);
    if (!pool) throw new UnavailableError();
    await forwardRequest(req, res, {
      pool,
      service: route.service,
      timeoutMs: deps.upstreamTimeoutMs,
      bodyLimitBytes: deps.bodyLimitBytes,
      headers: upstreamRequestHeaders(req, {
        requestId: req.id,
        identity: signedIdentity,
        trustProxy: deps.trustProxy,
      }),
    });
  };
}
