// What the gateway does with a request under /v1 or /scim/v2: find its route, authenticate the bearer token,
// check revocation and the rate limit (one Redis round trip), check the scope, refuse unsafe text
// in the path parameters and the query and a query parameter the operation does not take (422
// naming the parameter), then forward it to the service
// with the caller's identity signed into a header. A request with a valid token to a path that
// has no route is admitted the same way before its 404 (or 405), so that every answer to an
// authenticated request carries the rate-limit headers and counts against its bucket. A request
// without a verified token counts against its client address's bucket and carries its headers.
import type { ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import { AuthenticationError, UnavailableError, type AppError } from '@ordering/errors';
import {
  type PlainRequest,
  type PlainRequestContext,
  assertDecodableQuery,
  assertSafeQuery,
  assertScopes,
  requestTelemetryOf,
  setTelemetryRoute,
  unsafeInputError,
} from '@ordering/http';
import {
  ATTR,
  paramAttributes,
  platformMetrics,
  recordError,
  startClientSpan,
  tracer,
} from '@ordering/telemetry';
import { bearerTokenOf } from './auth/bearer-token';
import { clientAddress } from './auth/client-address';
import { SignedIdentities } from './auth/signed-identity';
import type { TokenAdmission } from './auth/token-admission';
import type { TokenVerifier } from './auth/token-verifier';
import { upstreamRequestHeaders } from './proxy/forwarded-headers';
import { forwardRequest, type ForwardOptions } from './proxy/forward-request';
import type { IdempotencyKeyEndpoints } from './idempotency/idempotency-key-endpoints';
import type { UpstreamPools } from './proxy/upstream-pools';
import { enforceRateLimit, setRateLimitHeaders } from './rate-limit/rate-limit-headers';
import type { AccessTokenClaims } from './auth/access-token-claims';
import { assertKnownQueryParameters } from './openapi/known-query-parameters';
import { MethodNotAllowedError, type RouteMatch, unknownPath } from './route-matcher';

export interface ApiRequestDeps {
  verifier: TokenVerifier;
  /** Revocation and rate limit, one Redis round trip. */
  admission: TokenAdmission;
  pools: UpstreamPools;
  identitySecret: string;
  upstreamTimeoutMs: number;
  bodyLimitBytes: number;
  trustProxy: boolean;
  /** Where each client's `Idempotency-Key` was first used. */
  idempotencyKeys: IdempotencyKeyEndpoints;
}

/**
 * Serves a request whose path the gateway routes (a service's route, a known path with another
 * method, or any path with a bearer token); `path` is the request's raw path, without the query.
 */
export type ApiRequestHandler = (
  req: PlainRequest,
  res: ServerResponse,
  ctx: PlainRequestContext,
  match: RouteMatch,
  path: string,
) => Promise<void>;

export function apiRequestHandler(deps: ApiRequestDeps): ApiRequestHandler {
  const identities = new SignedIdentities(deps.identitySecret);

  const limitPerSecond = deps.admission.rateLimiter.params.refillPerSecond;

  /** Revocation and the rate limit for a verified token; the rate-limit headers are set. */
  const admit = async (claims: AccessTokenClaims, res: ServerResponse) => {
    const { revoked, bucket } = await deps.admission.admit(claims);
    if (revoked) {
      setRateLimitHeaders(res, limitPerSecond, bucket);
      throw new AuthenticationError('The bearer token has been revoked');
    }
    enforceRateLimit(res, limitPerSecond, bucket, 'token');
  };

  /** The rate limit of a request without a verified token: its client address's bucket. */
  const admitAnonymous = async (req: PlainRequest, res: ServerResponse) =>
    enforceRateLimit(
      res,
      limitPerSecond,
      await deps.admission.admitAddress(clientAddress(req, deps.trustProxy)),
      'address',
    );

  /** The verified claims; a request whose token fails takes from its address's bucket first. */
  const verified = async (req: PlainRequest, res: ServerResponse): Promise<AccessTokenClaims> => {
    try {
      return await deps.verifier.verify(bearerTokenOf(req.headers.authorization));
    } catch (err) {
      await admitAnonymous(req, res);
      throw err;
    }
  };

  /**
   * The token verified and admitted, in the `gateway admission` span (one Redis round trip and,
   * rarely, a JWKS fetch happen here); the caller's account goes on the request's span.
   */
  const authenticate = async (req: PlainRequest, res: ServerResponse): Promise<AccessTokenClaims> => {
    const span = tracer().startSpan('gateway admission');
    try {
      const claims = await verified(req, res);
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
    req: PlainRequest,
    res: ServerResponse,
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
   * one without a valid token takes from its address's bucket and gets `notFound` (not a 401: a
   * path that does not exist reveals nothing).
   */
  const refuseUnrouted = async (req: PlainRequest, res: ServerResponse, notFound: AppError) => {
    let claims: AccessTokenClaims | undefined;
    if (req.headers.authorization !== undefined) {
      try {
        claims = await deps.verifier.verify(bearerTokenOf(req.headers.authorization));
      } catch {
        claims = undefined;
      }
    }
    if (claims) await admit(claims, res);
    else await admitAnonymous(req, res);
    throw notFound;
  };

  return async (req, res, ctx, match, path) => {
    const method = req.method ?? 'GET';
    if (match.kind === 'none') return refuseUnrouted(req, res, unknownPath(method, path));
    if (match.kind === 'wrong_method')
      return refuseUnrouted(req, res, new MethodNotAllowedError(method, path, match.allow));
    const { route } = match;
    // The gateway's own routes are its Express app's (request-listener.ts).
    if (route.service === 'gateway') throw new Error(`${route.path} is not a proxied route`);
    setTelemetryRoute(req, route.path);
    const requestSpan = requestTelemetryOf(req)?.span;
    if (requestSpan?.isRecording()) requestSpan.setAttributes(paramAttributes(match.params, route.path));

    const claims = await authenticate(req, res);
    const { identity, header: signedIdentity } = identities.of(claims);
    assertScopes(identity, route.scopes);
    // Text no service accepts never leaves the gateway (services refuse it too).
    if (match.unsafeParam) throw unsafeInputError({ path: match.unsafeParam, problem: 'unsafe_text' });
    // Prefix routes (SCIM) answer in their own error format: their service refuses it.
    const url = req.url ?? path;
    const query = url.indexOf('?');
    if (query !== -1 && !route.path.endsWith('/*')) {
      const rawQuery = url.slice(query + 1);
      assertDecodableQuery(rawQuery);
      const parsed = parseQuery(rawQuery);
      assertSafeQuery(parsed);
      assertKnownQueryParameters(route, parsed);
    }
    const idempotencyKey = req.headers['idempotency-key'];
    if (typeof idempotencyKey === 'string')
      await deps.idempotencyKeys.claim(claims, idempotencyKey, `${method} ${route.path}`);

    const pool = deps.pools.get(route.service);
    if (!pool) throw new UnavailableError();
    await forward(req, res, route.service, {
      pool,
      timeoutMs: deps.upstreamTimeoutMs,
      bodyLimitBytes: deps.bodyLimitBytes,
      log: ctx.log,
      headers: upstreamRequestHeaders(req, {
        requestId: req.id,
        identity: signedIdentity,
        trustProxy: deps.trustProxy,
      }),
    });
  };
}
