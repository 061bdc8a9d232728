// What the gateway does with a request under /v1 or /scim/v2: find its route, authenticate the bearer token,
// check revocation and the rate limit (one Redis round trip), check the scope, refuse unsafe text
// in the path parameters and the query (422 naming the parameter), then forward it to the service
// with the caller's identity signed into a header. A request with a valid token to a path that
// has no route is admitted the same way before its 404 (or 405), so that every answer to an
// authenticated request carries the rate-limit headers and counts against its bucket.
import type { Request, RequestHandler, Response } from 'express';
import { AuthenticationError, RateLimitError, UnavailableError, type AppError } from '@ordering/errors';
import { assertSafeQuery, requestTelemetryOf, setTelemetryRoute, unsafeInputError } from '@ordering/http';
import {
  ATTR,
  paramAttributes,
  platformMetrics,
  recordError,
  startClientSpan,
  tracer,
} from '@ordering/telemetry';
import { bearerTokenOf } from './auth/bearer-token';
import { assertScopes } from './auth/scope-policy';
import { SignedIdentities } from './auth/signed-identity';
import type { TokenAdmission } from './auth/token-admission';
import type { TokenVerifier } from './auth/token-verifier';
import { upstreamRequestHeaders } from './proxy/forwarded-headers';
import { forwardRequest, type ForwardOptions } from './proxy/forward-request';
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
    if (!bucket.allowed) {
      platformMetrics().rateLimitRefusals.add(1);
      throw new RateLimitError(bucket.retryAfterSeconds);
    }
  };

  /**
   * The token verified and admitted, in the `gateway admission` span (one Redis round trip and,
   * rarely, a JWKS fetch happen here); the caller's account goes on the request's span.
   */
  const authenticate = async (req: Request, res: Response): Promise<AccessTokenClaims> => {
    const span = tracer().startSpan('gateway admission');
    try {
      const claims = await deps.verifier.verify(bearerTokenOf(req.headers.authorization));
      if (span.isRecording()) {
        const who = { [ATTR.custId]: claims.cust_id, [ATTR.clientId]: claims.client_id };
        span.setAttributes(who);
        requestTelemetryOf(req)?.span.setAttributes(who);
      }
      await admit(claims, res);
      return claims;
    } catch (err) {
      if (err instanceof AuthenticationError) platformMetrics().authFailures.add(1);
      recordError(span, err);
      throw err;
    } finally {
      span.end();
    }
  };

  /** Forwards in a CLIENT span whose `traceparent` the service continues. */
  const forward = async (
    req: Request,
    res: Response,
    service: string,
    options: Omit<ForwardOptions, 'service'>,
  ) => {
    const { span, headers: trace } = startClientSpan(`forward ${service}`, { [ATTR.service]: service });
    Object.assign(options.headers, trace);
    try {
      await forwardRequest(req, res, { ...options, service });
      if (span.isRecording()) span.setAttribute('http.response.status_code', res.statusCode);
    } catch (err) {
      platformMetrics().upstreamFailures.add(1, { service });
      recordError(span, err);
      throw err;
    } finally {
      span.end();
    }
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
    setTelemetryRoute(req, route.path);
    const requestSpan = requestTelemetryOf(req)?.span;
    if (requestSpan?.isRecording()) requestSpan.setAttributes(paramAttributes(match.params, route.path));
    if (route.service === 'gateway') {
      const own = deps.ownRoutes[route.path];
      if (!own) throw new Error(`No handler for the gateway's own route ${route.path}`);
      return own(req, res, next);
    }

    const claims = await authenticate(req, res);
    const { identity, header: signedIdentity } = identities.of(claims);
    assertScopes(identity, route.scopes);
    // Text no service accepts never leaves the gateway (services refuse it too).
    if (match.unsafeParam) throw unsafeInputError({ path: match.unsafeParam, problem: 'unsafe_text' });
    // Prefix routes (SCIM) answer in their own error format: their service refuses it.
    if (req.url.includes('?') && !route.path.endsWith('/*')) assertSafeQuery(req.query);

    const pool = deps.pools.get(route.service);
    if (!pool) throw new UnavailableError();
    await forward(req, res, route.service, {
      pool,
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
