// Assembles the gateway from its configuration: Redis, token verification, route table, pools and
// the HTTP entry point. `startGateway` runs it in-process (tests, the end-to-end harness);
// start.ts runs the same entry points as a process that stops on SIGTERM.
import { type EntryPoint, type Logger, createLogger, httpEntryPoint, runService } from '@ordering/http';
import { apiRequestHandler } from './api-request-handler';
import { createGatewayApp } from './app';
import { RevocationList } from './auth/revocation-list';
import { TokenAdmission } from './auth/token-admission';
import { createTokenVerifier } from './auth/token-verifier';
import type { GatewayConfig } from './config';
import { openApiDocument } from './openapi-document';
import { IdempotencyKeyEndpoints } from './idempotency/idempotency-key-endpoints';
import { openApiEndpoint } from './openapi/openapi-endpoint';
import { OPERATIONS } from './openapi/operation-catalog';
import { UpstreamPools } from './proxy/upstream-pools';
import { addressRateLimit } from './rate-limit/address-rate-limit';
import { RateLimiter } from './rate-limit/rate-limiter';
import { createRedisConnection } from './redis-connection';
import { gatewayRequestListener } from './request-listener';
import { RouteMatcher } from './route-matcher';
import { PREFIX_ROUTES, ROUTES } from './route-table';

export interface Gateway {
  /** Started first, stopped last: Redis and the upstream pools. Then the HTTP server. */
  entryPoints: EntryPoint[];
  /** Base URL once started, e.g. http://127.0.0.1:41234 */
  url(): string;
}

export interface GatewayOptions {
  logger?: Logger;
}

/** How long start-up waits for Redis before serving degraded. */
const REDIS_SETTLE_MS = 2000;

export function createGateway(config: GatewayConfig, options: GatewayOptions = {}): Gateway {
  const logger = options.logger ?? createLogger({ service: config.SERVICE_NAME, level: config.LOG_LEVEL });
  const redis = createRedisConnection({
    url: config.REDIS_URL,
    commandTimeoutMs: config.REDIS_COMMAND_TIMEOUT_MS,
    logger,
  });
  const pools = new UpstreamPools(
    {
      orders: config.ORDERS_URL,
      catalog: config.CATALOG_URL,
      customers: config.CUSTOMERS_URL,
      approvals: config.APPROVALS_URL,
      webhooks: config.WEBHOOKS_URL,
      auth: config.AUTH_URL,
    },
    { connections: config.UPSTREAM_CONNECTIONS, timeoutMs: config.UPSTREAM_TIMEOUT_MS },
  );
  // Generated once, here, not per request.
  const serveOpenApi = openApiEndpoint(
    openApiDocument(ROUTES, {
      authIssuer: config.AUTH_ISSUER,
      ...(config.PUBLIC_BASE_URL ? { publicBaseUrl: config.PUBLIC_BASE_URL } : {}),
      environments: {
        production: config.API_BASE_URL,
        test: config.TEST_API_BASE_URL,
        productionOAuthHost: config.OAUTH_HOST_URL,
        testOAuthHost: config.TEST_OAUTH_HOST_URL,
      },
    }),
  );

  const admission = new TokenAdmission(
    new RevocationList(config.REDIS_KEY_PREFIX),
    new RateLimiter(
      redis,
      { capacity: config.RATE_LIMIT_CAPACITY, refillPerSecond: config.RATE_LIMIT_REFILL_PER_SECOND },
      config.REDIS_KEY_PREFIX,
    ),
  );
  const app = createGatewayApp({
    service: config.SERVICE_NAME,
    logger,
    trustProxy: config.TRUST_PROXY,
    readiness: [
      {
        name: 'redis',
        // Without Redis the gateway still serves (in-process rate limits): degraded, not unready.
        check: async () => (redis.health.degraded ? `degraded: ${redis.health.degraded}` : undefined),
      },
    ],
    ownRoutes: { '/v1/openapi.json': serveOpenApi },
    rateLimit: addressRateLimit(admission, config.TRUST_PROXY),
  });
  const api = apiRequestHandler({
    verifier: createTokenVerifier({
      jwksUrl: config.AUTH_JWKS_URL,
      issuer: config.AUTH_ISSUER,
      audience: config.API_AUDIENCE,
      clockToleranceSeconds: config.CLOCK_TOLERANCE_SECONDS,
      cacheMaxAgeMs: config.JWKS_CACHE_MAX_AGE_MS,
      jwksRequestsPerMinute: config.JWKS_REQUESTS_PER_MINUTE,
      jwksTimeoutMs: config.JWKS_TIMEOUT_MS,
    }),
    admission,
    idempotencyKeys: new IdempotencyKeyEndpoints(
      redis,
      config.REDIS_KEY_PREFIX,
      new Set(
        Object.entries(OPERATIONS)
          .filter(([, operation]) => operation.idempotent)
          .map(([endpoint]) => endpoint),
      ),
    ),
    pools,
    identitySecret: config.INTERNAL_IDENTITY_SECRET,
    upstreamTimeoutMs: config.UPSTREAM_TIMEOUT_MS,
    bodyLimitBytes: config.BODY_LIMIT_BYTES,
    trustProxy: config.TRUST_PROXY,
  });
  const listener = gatewayRequestListener({
    app,
    matcher: new RouteMatcher(ROUTES, PREFIX_ROUTES),
    api,
    logger,
  });

  const resources: EntryPoint = {
    name: 'connections',
    start: () => redis.settle(REDIS_SETTLE_MS),
    stop: async () => {
      await Promise.all([redis.close(), pools.close()]);
    },
  };
  // A refusal goes out before a client waiting for 100 Continue sends its body (forward-request.ts).
  const http = httpEntryPoint(listener, {
    port: config.PORT,
    host: config.HOST,
    logger,
    deferContinue: true,
  });
  return { entryPoints: [resources, http], url: () => http.url() };
}

export interface RunningGateway {
  url: string;
  stop(): Promise<void>;
}

/** Starts the gateway in this process (no signal handling); `stop()` drains and closes it. */
export async function startGateway(
  config: GatewayConfig,
  options: GatewayOptions = {},
): Promise<RunningGateway> {
  const logger = options.logger ?? createLogger({ service: config.SERVICE_NAME, level: config.LOG_LEVEL });
  const gateway = createGateway(config, { logger });
  const running = await runService({
    service: config.SERVICE_NAME,
    logger,
    entryPoints: gateway.entryPoints,
    signals: [],
  });
  return { url: gateway.url(), stop: () => running.stop() };
}
