// What the gateway does with a request under /v1 or /scim/v2: find its route, authenticate the bearer token,
// check revocation and the rate limit (one Redis round trip), check the scope, refuse unsafe text
// in the path parameters and the query (422 naming the parameter), then forward it to the service
// with the caller's identity signed into a header. A request with a valid token to a path that
// has no route is admitted the same way before its 404 (or 405), so that every answer to an
// authenticated request carries the rate-limit headers and counts against its bucket.
import type { Request, RequestHandler, Response } from 'express';
import { AuthenticationError, RateLimitError, UnavailableError, type AppError } from '@ordering/errors';
import { assertSafeQuery, unsafeInputError } from '@ordering/http';
import { bearerTokenOf } from './auth/bearer-token';
import { assertScopes } from './auth/scope-policy';
import { SignedIdentities } from './auth/signed-identity';
import type { TokenAdmission } from './auth/token-admission';
import type { TokenVerifier } from './auth/token-verifier';
import { upstreamRequestHeaders } from './proxy/forwarded-headers';
import { forwardRequest } from './proxy/forward-request';
import type { UpstreamPools } from './proxy/upstream-pools';
import { setRateLimitHeaders } from './rate-limit/rate-limit-headers';
import type { AccessTokenClaims } from './auth/access-token-claims';
import { MethodNotAllowedError, unknownPath, type RouteMatcher } from './route-matcher';

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

  /** Revocation and the rate limit for a verified token; the rate-limit headers are set. */
  const admit = async (claims: AccessTokenClaims, res: Response) => {
    const { revoked, bucket } = await deps.admission.admit(claims);
    setRateLimitHeaders(res, deps.admission.rateLimiter.params.refillPerSecond, bucket);
    if (revoked) throw new AuthenticationError('The bearer token has been revoked');
    if (!bucket.allowed) throw new RateLimitError(bucket.retryAfterSeconds);
  };

  /**
   * No route: a request carrying a valid token is admitted (headers, bucket) before `notFound`;
   * one without a valid token gets `notFound` alone (a path that does not exist reveals nothing).
   */
  const refuseUnrouted = async (req: Request, res: Response, notFound: AppError) => {
    if (req.headers.authorization !== undefined) {
      let claims: AccessTokenClaims | undefined;
      try {
        claims = await deps.verifier.verify(bearerTokenOf(req.headers.authorization));
      } catch {
        claims = undefined;
      }
      if (claims) await admit(claims, res);
    }
    throw notFound;
  };

  return async (req, res, next) => {
    const match = deps.matcher.match(req.method, req.path);
    if (match.kind === 'none') {
      // Paths outside the API (health, metrics of the app) are the app's business.
      if (req.headers.authorization === undefined) return next();
      return refuseUnrouted(req, res, unknownPath(req.method, req.path));
    }
    if (match.kind === 'wrong_method')
      return refuseUnrouted(req, res, new MethodNotAllowedError(req.method, req.path, match.allow));
    const { route } = match;
    if (route.service === 'gateway') {
      const own = deps.ownRoutes[route.path];
      if (!own) throw new Error(`No handler for the gateway's own route ${route.path}`);
      return own(req, res, next);
    }

    const claims = await deps.verifier.verify(bearerTokenOf(req.headers.authorization));
    await admit(claims, res);
    const { identity, header: signedIdentity } = identities.of(claims);
    assertScopes(identity, route.scopes);
    // Text no service accepts never leaves the gateway (services refuse it too).
    if (match.unsafeParam) throw unsafeInputError({ path: match.unsafeParam, problem: 'unsafe_text' });
    // Prefix routes (SCIM) answer in their own error format: their service refuses it.
    if (req.url.includes('?') && !route.path.endsWith('/*')) assertSafeQuery(req.query);

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
