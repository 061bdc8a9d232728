// The auth service's environment, validated at start-up (the process refuses to start on a bad value).
import { z } from 'zod';
import { ConfigError, commonEnv, env, loadConfig } from '@ordering/config';

/** A secret of at least 32 characters (random, base64 or hex). */
const secret = (name: string) => z.string().min(32, `${name} needs at least 32 characters`);

/**
 * Values that let the local stack and tests start without setting every secret. A production
 * process refuses to start with any of them (see loadAuthConfig).
 */
export const LOCAL_DEV_SECRETS = {
  CLIENT_SECRET_KEY: 'local-dev-client-secret-hmac-key-change-me',
  KEY_ENCRYPTION_KEY: Buffer.from('local-dev-key-encryption-key-32b').toString('base64'),
  COOKIE_KEYS: 'local-dev-cookie-signing-key-change-me',
} as const;

/** A whole number of at least 1. */
const positiveInt = (fallback: number) => z.coerce.number().int().min(1).default(fallback);

export const authConfigSchema = z.object({
  ...commonEnv,
  SERVICE_NAME: env.string('auth'),
  PORT: env.port(8090),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: env.url('postgres://postgres@127.0.0.1:5432/ordering_auth'),
  KAFKA_BROKERS: env.list('127.0.0.1:19092'),
  /** Consumer group of the user events consumer (one per deployment). */
  KAFKA_CONSUMER_GROUP: env.string('auth-service'),
  /** Where a new consumer group starts: the oldest retained event (true) or only new ones. */
  KAFKA_FROM_BEGINNING: env.bool(true),
  /** Longest a fetch waits on an idle topic (lower in tests). */
  KAFKA_MAX_WAIT_MS: env.int(1000),
  REDIS_URL: env.url('redis://127.0.0.1:6379'),
  /** Prefix of the revocation keys the gateway reads (`<prefix>revoked:jti:<jti>` ...). */
  REDIS_KEY_PREFIX: z.string().default(''),
  INTERNAL_IDENTITY_SECRET: secret('INTERNAL_IDENTITY_SECRET'),
  /** The OAuth host origin: the `iss` of every token. */
  AUTH_ISSUER: env.url('http://127.0.0.1:8090'),
  /** The API audience: the `aud` of every access token. */
  API_AUDIENCE: env.url('http://127.0.0.1:8080'),
  CUSTOMERS_URL: env.url('http://127.0.0.1:8103'),
  /** Key of the HMAC-SHA-256 that stores client secrets. */
  CLIENT_SECRET_KEY: secret('CLIENT_SECRET_KEY').default(LOCAL_DEV_SECRETS.CLIENT_SECRET_KEY),
  /** 32 bytes, base64 or hex: AES-256-GCM key of the private signing keys at rest. */
  KEY_ENCRYPTION_KEY: z
    .string()
    .refine((v) => decodeKey(v) !== undefined, 'must be 32 bytes in base64 or hex')
    .default(LOCAL_DEV_SECRETS.KEY_ENCRYPTION_KEY),
  /** Keys of the signed cookies (sessions, interactions), comma-separated; the first signs. */
  COOKIE_KEYS: env.list(LOCAL_DEV_SECRETS.COOKIE_KEYS),
  /**
   * How often the service reloads the signing keys from the database (rotation by another process).
   * Short: after a leaked key is withdrawn (`--overlap-seconds 0`), tokens issued until the reload
   * still carry the withdrawn key and the gateways refuse them. A reload is one small query.
   */
  KEY_RELOAD_INTERVAL_MS: env.int(5_000),
  /**
   * Sign-in throttle (README "Throttling"). The tight limit: attempts of one login from one client
   * address within the window before further ones from that address are refused.
   */
  SIGN_IN_MAX_FAILURES: positiveInt(5),
  SIGN_IN_FAILURE_WINDOW_SECONDS: positiveInt(900),
  /** The ceiling of one login across all addresses (a guesser spread over many addresses). */
  SIGN_IN_LOGIN_MAX_FAILURES: positiveInt(100),
  SIGN_IN_LOGIN_WINDOW_SECONDS: positiveInt(3600),
  /** The ceiling of one client address across all logins (credential stuffing from one address). */
  SIGN_IN_ADDRESS_MAX_FAILURES: positiveInt(100),
  SIGN_IN_ADDRESS_WINDOW_SECONDS: positiveInt(900),
  /**
   * Token endpoint limits (README, "Token endpoint limits"): a bucket holds BURST requests and gets
   * one more every REFILL_SECONDS. Per client for client_credentials (an access token lives
   * 3600 s: a client gets at most BURST + 3600 / REFILL_SECONDS tokens per token lifetime, 180 by
   * default); per client and user for authorization_code and refresh_token; per client id for
   * requests whose client authentication fails.
   */
  TOKEN_LIMIT_CLIENT_BURST: positiveInt(60),
  TOKEN_LIMIT_CLIENT_REFILL_SECONDS: positiveInt(30),
  TOKEN_LIMIT_USER_BURST: positiveInt(20),
  TOKEN_LIMIT_USER_REFILL_SECONDS: positiveInt(180),
  TOKEN_LIMIT_FAILED_AUTHENTICATION_BURST: positiveInt(10),
  TOKEN_LIMIT_FAILED_AUTHENTICATION_REFILL_SECONDS: positiveInt(60),
  /**
   * Behind the ingress controller or a TLS-terminating proxy (exactly one hop): trust its
   * X-Forwarded-* for the issuer's scheme and, from the last X-Forwarded-For entry, the client's
   * address.
   */
  TRUST_PROXY: env.bool(false),
});

export type AuthConfig = z.infer<typeof authConfigSchema>;

export function loadAuthConfig(source: NodeJS.ProcessEnv = process.env): AuthConfig {
  const config = loadConfig(authConfigSchema, source);
  if (config.NODE_ENV === 'production') {
    const problems = [
      config.CLIENT_SECRET_KEY === LOCAL_DEV_SECRETS.CLIENT_SECRET_KEY ? 'CLIENT_SECRET_KEY' : undefined,
      config.KEY_ENCRYPTION_KEY === LOCAL_DEV_SECRETS.KEY_ENCRYPTION_KEY ? 'KEY_ENCRYPTION_KEY' : undefined,
      config.COOKIE_KEYS.includes(LOCAL_DEV_SECRETS.COOKIE_KEYS) ? 'COOKIE_KEYS' : undefined,
    ]
      .filter((name): name is string => name !== undefined)
      .map((name) => `${name} is the local development value; set a secret one in production`);
    if (problems.length) throw new ConfigError(problems);
  }
  return config;
}

/** The 32 raw bytes of KEY_ENCRYPTION_KEY (hex or base64), or undefined when it is not 32 bytes. */
export function decodeKey(value: string): Buffer | undefined {
  const hex = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : undefined;
  const bytes = hex ?? Buffer.from(value, 'base64');
  return bytes.length === 32 ? bytes : undefined;
}
