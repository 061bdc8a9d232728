// The gateway's environment. Validated at start-up: the process refuses to start on a bad value.
import { commonEnv, env, loadConfig, z } from '@ordering/config';

/** An optional base URL of a service behind the gateway; unset means "not deployed here" (503). */
const serviceUrl = () => z.url().optional();

export const gatewayEnvSchema = z.object({
  ...commonEnv,
  SERVICE_NAME: env.string('gateway'),
  PORT: env.port(8080),
  HOST: env.string('0.0.0.0'),

  // Bearer tokens: RS256 JWTs of the auth service, verified against its JWKS.
  AUTH_JWKS_URL: env.url(),
  AUTH_ISSUER: env.string(),
  API_AUDIENCE: env.string(),
  /**
   * Public origin of the API in this environment (e.g. `https://api.ordering.example`), the
   * `servers` URL of /v1/openapi.json. Unset: `/`, the host that served the document.
   */
  PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  /**
   * The API bases of the two environments (spec rule 2), both listed as `servers` of
   * /v1/openapi.json by either environment's gateway.
   */
  API_BASE_URL: z.url({ protocol: /^https?$/ }).default('https://api.ordering.example/v1'),
  TEST_API_BASE_URL: z.url({ protocol: /^https?$/ }).default('https://api.test.ordering.example/v1'),
  /**
   * The OAuth hosts of production and test (spec rule 2: each environment has its own), named in
   * the description of each environment's server: a token is accepted only by the API of the
   * environment whose OAuth host issued it.
   */
  OAUTH_HOST_URL: z.url({ protocol: /^https?$/ }).default('https://auth.ordering.example'),
  TEST_OAUTH_HOST_URL: z.url({ protocol: /^https?$/ }).default('https://auth.test.ordering.example'),
  /** Allowed clock difference for `exp`/`nbf`/`iat`, in seconds. */
  CLOCK_TOLERANCE_SECONDS: env.int(5).pipe(z.number().min(0).max(300)),
  /** How long a fetched signing key is trusted before the JWKS is fetched again. */
  JWKS_CACHE_MAX_AGE_MS: env.int(600_000).pipe(z.number().min(1000)),
  /** JWKS fetches allowed per minute for unknown key ids (a rotated-in key). */
  JWKS_REQUESTS_PER_MINUTE: env.int(10).pipe(z.number().min(1)),
  JWKS_TIMEOUT_MS: env.int(5000).pipe(z.number().min(100)),

  /** HMAC secret of the `X-Ordering-Identity` header, shared with every service. */
  INTERNAL_IDENTITY_SECRET: z.string().min(32, 'must be at least 32 characters'),

  // Services behind the gateway.
  ORDERS_URL: serviceUrl(),
  CATALOG_URL: serviceUrl(),
  CUSTOMERS_URL: serviceUrl(),
  APPROVALS_URL: serviceUrl(),
  WEBHOOKS_URL: serviceUrl(),
  /** The auth service's API (`/v1/oauth_clients`); its OAuth host is AUTH_ISSUER. */
  AUTH_URL: serviceUrl(),
  /** An upstream that has not answered with headers by then is a 504 upstream_timeout. */
  UPSTREAM_TIMEOUT_MS: env.int(10_000).pipe(z.number().min(1)),
  /** Keep-alive connections per service. */
  UPSTREAM_CONNECTIONS: env.int(64).pipe(z.number().min(1)),
  /** Largest request body forwarded, in bytes (413 body_too_large above it). */
  BODY_LIMIT_BYTES: env.int(1_048_576).pipe(z.number().min(1)),
  /** Trust `X-Forwarded-*` from a load balancer in front (Express `trust proxy`). */
  TRUST_PROXY: env.bool(false),

  // Redis: revocation denylist and the shared rate-limit buckets.
  REDIS_URL: env.url('redis://127.0.0.1:6379'),
  /** Prefix of every key the gateway reads or writes (the writers of the denylist use the same). */
  REDIS_KEY_PREFIX: z.string().default(''),
  /** A Redis command slower than this counts as Redis being down. */
  REDIS_COMMAND_TIMEOUT_MS: env.int(250).pipe(z.number().min(10)),

  // Rate limit per access token (decisions.md: capacity 240, 120 per second).
  RATE_LIMIT_CAPACITY: env.int(240).pipe(z.number().min(1)),
  RATE_LIMIT_REFILL_PER_SECOND: env.int(120).pipe(z.number().min(1)),
});

export type GatewayConfig = z.infer<typeof gatewayEnvSchema>;

/** Reads the gateway's configuration from `env` (default `process.env`); throws ConfigError. */
export function loadGatewayConfig(source: NodeJS.ProcessEnv = process.env): GatewayConfig {
  return loadConfig(gatewayEnvSchema, source);
}
