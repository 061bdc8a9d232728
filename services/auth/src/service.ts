// The auth service, assembled: database (migrated, signing key ensured), Redis (revocation
// denylist, sign-in throttle), oidc-provider behind an Express app, and the entry points.
// `startAuthService` runs it in-process (tests, e2e); start.ts runs it as the production process.
import { Redis } from 'ioredis';
import { redisTlsFromEnv } from '@ordering/config';
import { createLocalJWKSet, type JWTVerifyGetKey } from 'jose';
import type { Knex } from 'knex';
import type Provider from 'oidc-provider';
import type { JWK } from 'oidc-provider';
import { databaseReadinessCheck, openServiceDatabase } from '@ordering/db';
import {
  createApp,
  createLogger,
  httpEntryPoint,
  startInProcess,
  type EntryPoint,
  type Logger,
} from '@ordering/http';
import { KafkaHealth, OutboxRelay, createKafka, type ConsumerRunner } from '@ordering/messaging';
import { decodeKey, type AuthConfig } from './config';
import { ClientRepository } from './data-access/client-repository';
import { HttpCustomersClient, type CustomersClient } from './data-access/customers-client';
import { IdentityProviderRepository } from './data-access/identity-provider-repository';
import { KeyCheckRepository } from './data-access/key-check-repository';
import { OpenIdRelyingParty } from './data-access/openid-relying-party';
import { accountOfGrantValue, purgeExpired } from './data-access/oidc-payload-repository';
import { RedisRevocationDenylist } from './data-access/revocation-denylist';
import { OutboxRevocationPublisher } from './data-access/revocation-outbox';
import { RedisSignInThrottle } from './data-access/sign-in-throttle';
import { SigningKeyRepository } from './data-access/signing-key-repository';
import { RedisTokenRequestThrottle } from './data-access/token-request-throttle';
import { recordClientSecretKey } from './domain/client-secret';
import type { RevocationDeps, RevocationPublisher } from './domain/revocation-use-case';
import { ensureSigningKey, loadSigningKeySet, type SigningKeyDeps } from './domain/signing-key-use-case';
import { mountInteractionRoutes } from './entry-points/http/interaction-routes';
import { FEDERATION_CALLBACK_PATH } from './entry-points/http/federation-routes';
import { createOidcProvider } from './entry-points/http/oidc-provider-factory';
import { mountOidcProvider } from './entry-points/http/oidc-provider-routes';
import { mountOAuthInputGuard } from './entry-points/http/oauth-input-guard';
import { mountTokenRoutes } from './entry-points/http/token-routes';
import { mountTokenEndpointLimit } from './entry-points/http/token-endpoint-limit';
import { oauthClientRoutes } from './entry-points/http/oauth-client-routes';
import { userEventsConsumer } from './entry-points/messaging/user-events-consumer';
import { migrations } from '../migrations';

export interface AuthServiceOptions {
  logger?: Logger;
  /** The customers service's internal API; default over HTTP at CUSTOMERS_URL. */
  customers?: CustomersClient;
  /** Where revocations are announced; default the outbox (published on TOPICS.auth by the relay). */
  publisher?: RevocationPublisher;
}

/** What the service is made of, for entry points and tests. */
export interface AuthServiceParts {
  config: AuthConfig;
  knex: Knex;
  redis: Redis;
  logger: Logger;
  revocation: RevocationDeps;
}

export interface AuthService {
  url: string;
  /** Reloads the signing keys now (rotation by the operator CLI); true when the set changed. */
  reloadKeys(): Promise<boolean>;
  /** Resolves once the user events consumer has joined its group (tests). */
  waitForConsumers(timeoutMs?: number): Promise<void>;
  parts: AuthServiceParts;
  stop(): Promise<void>;
}

export interface BuiltAuthService {
  entryPoints: EntryPoint[];
  http: ReturnType<typeof httpEntryPoint>;
  consumer: ConsumerRunner;
  reloadKeys(): Promise<boolean>;
  parts: AuthServiceParts;
  /** Releases the database pool and Redis (after the entry points stopped). */
  close(): Promise<void>;
}

/** Builds everything and returns the entry points; starting them is the caller's business. */
export async function buildAuthService(
  config: AuthConfig,
  options: AuthServiceOptions = {},
): Promise<BuiltAuthService> {
  const logger = options.logger ?? createLogger({ service: config.SERVICE_NAME, level: config.LOG_LEVEL });
  const encryptionKey = decodeKey(config.KEY_ENCRYPTION_KEY);
  if (!encryptionKey) throw new Error('KEY_ENCRYPTION_KEY must be 32 bytes');

  const knex = await openServiceDatabase({
    url: config.DATABASE_URL,
    service: config.SERVICE_NAME,
    logger,
    migrations,
  });
  const redis = new Redis(config.REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 2,
    ...redisTlsFromEnv(),
  });
  let kafkaHealth: KafkaHealth | undefined;
  const close = async () => {
    await kafkaHealth?.stop().catch(() => {});
    redis.disconnect();
    await knex.destroy();
  };
  try {
    await redis.connect();
    const keyDeps: SigningKeyDeps = {
      keys: new SigningKeyRepository(knex),
      encryptionKey,
      now: () => new Date(),
    };
    await ensureSigningKey(keyDeps);
    if (await recordClientSecretKey(new KeyCheckRepository(knex), config.CLIENT_SECRET_KEY, new Date())) {
      logger.error(
        'CLIENT_SECRET_KEY differs from the one this database last ran with: client secrets made before no longer verify',
      );
    }

    const clients = new ClientRepository(knex);
    const customers =
      options.customers ?? new HttpCustomersClient(config.CUSTOMERS_URL, config.INTERNAL_IDENTITY_SECRET);
    const denylist = new RedisRevocationDenylist(redis, config.REDIS_KEY_PREFIX);
    const revocation: RevocationDeps = {
      denylist,
      publisher: options.publisher ?? new OutboxRevocationPublisher(knex),
      now: () => Date.now() / 1000,
    };
    const kafka = createKafka({ clientId: config.SERVICE_NAME, brokers: config.KAFKA_BROKERS, logger });
    const health = new KafkaHealth(kafka, { timeoutMs: 1500 });
    kafkaHealth = health;
    const parts: AuthServiceParts = { config, knex, redis, logger, revocation };

    // The provider holds its signing keys; a rotation builds a new provider with the new set.
    let keySet = await loadSigningKeySet(keyDeps);
    const buildProvider = () =>
      createOidcProvider({
        config,
        knex,
        clients,
        customers,
        signingKeys: keySet.privateJwks as unknown as JWK[],
        revocation,
        logger,
      });
    let provider: Provider = buildProvider();
    let verificationKeys: JWTVerifyGetKey = createLocalJWKSet({ keys: keySet.publicJwks as JWK[] } as never);
    const reloadKeys = async (): Promise<boolean> => {
      const next = await loadSigningKeySet(keyDeps);
      if (next.fingerprint === keySet.fingerprint) return false;
      keySet = next;
      provider = buildProvider();
      verificationKeys = createLocalJWKSet({ keys: keySet.publicJwks as JWK[] } as never);
      logger.info({ kids: keySet.fingerprint }, 'signing keys reloaded');
      return true;
    };

    const app = createApp({
      service: config.SERVICE_NAME,
      logger,
      // Unsafe text in a query is refused by the OAuth boundary (oauth-input-guard.ts) in RFC 6749's
      // shape, and by the sign-in pages as their own refusal, not as an API error.
      checkQuery: false,
      // OAuth endpoints and sign-in pages take forms (application/x-www-form-urlencoded), read by
      // their own parsers; the JSON parser leaves those bodies alone.
      otherMediaTypes: 'pass',
      readiness: [
        databaseReadinessCheck(knex),
        {
          // Tokens do not need Kafka: without it revocation announcements and user events wait
          // (the outbox and the consumer catch up), so the service stays ready and says so.
          name: 'kafka',
          check: () =>
            health.check().then(
              () => undefined,
              (err: unknown) =>
                `degraded: ${err instanceof Error ? err.message : String(err)}; user.deactivated events and revocation announcements are delayed`,
            ),
        },
        {
          name: 'redis',
          check: async () => {
            await redis.ping();
          },
        },
      ],
      routes: (a) => {
        // One trusted hop, the proxy in front (the ingress controller): `req.ip` is the last
        // X-Forwarded-For entry, the one that proxy wrote; the entries before it are whatever the
        // client sent (`true` would take the first, letting anyone choose the address that the
        // sign-in throttle counts). Without TRUST_PROXY, the connection's peer.
        if (config.TRUST_PROXY) a.set('trust proxy', 1);
        mountOAuthInputGuard(a);
        a.use(
          oauthClientRoutes({
            clients,
            customers,
            secretKey: config.CLIENT_SECRET_KEY,
            identitySecret: config.INTERNAL_IDENTITY_SECRET,
            now: () => new Date(),
          }),
        );
        mountTokenRoutes(a, {
          clients,
          clientSecretKey: config.CLIENT_SECRET_KEY,
          issuer: config.AUTH_ISSUER,
          customers,
          revocation,
          inspection: {
            keys: () => verificationKeys,
            issuer: config.AUTH_ISSUER,
            audience: config.API_AUDIENCE,
            denylist,
            clientActive: async (clientId) => (await clients.find(clientId))?.status === 'active',
            now: () => Date.now() / 1000,
          },
        });
        mountInteractionRoutes(a, {
          provider: () => provider,
          signIn: {
            customers,
            throttle: new RedisSignInThrottle(redis, config.REDIS_KEY_PREFIX, {
              loginAddress: {
                max: config.SIGN_IN_MAX_FAILURES,
                windowSeconds: config.SIGN_IN_FAILURE_WINDOW_SECONDS,
              },
              login: {
                max: config.SIGN_IN_LOGIN_MAX_FAILURES,
                windowSeconds: config.SIGN_IN_LOGIN_WINDOW_SECONDS,
              },
              address: {
                max: config.SIGN_IN_ADDRESS_MAX_FAILURES,
                windowSeconds: config.SIGN_IN_ADDRESS_WINDOW_SECONDS,
              },
            }),
          },
          csrfKey: config.COOKIE_KEYS[0]!,
          audience: config.API_AUDIENCE,
          logger,
          federation: {
            identityProviders: new IdentityProviderRepository(knex, encryptionKey),
            relyingParty: new OpenIdRelyingParty({
              redirectUri: new URL(FEDERATION_CALLBACK_PATH, config.AUTH_ISSUER).href,
            }),
            customers,
            onFailure: (reason, err) => logger.warn({ err }, reason),
          },
        });
        mountTokenEndpointLimit(a, {
          clients,
          secretKey: config.CLIENT_SECRET_KEY,
          issuer: config.AUTH_ISSUER,
          accountOf: (grantType, value) =>
            accountOfGrantValue(
              knex,
              grantType === 'authorization_code' ? 'AuthorizationCode' : 'RefreshToken',
              value,
            ),
          throttle: new RedisTokenRequestThrottle(redis, config.REDIS_KEY_PREFIX, logger),
          limits: {
            client: {
              burst: config.TOKEN_LIMIT_CLIENT_BURST,
              refillSeconds: config.TOKEN_LIMIT_CLIENT_REFILL_SECONDS,
            },
            user: {
              burst: config.TOKEN_LIMIT_USER_BURST,
              refillSeconds: config.TOKEN_LIMIT_USER_REFILL_SECONDS,
            },
            failed_authentication: {
              burst: config.TOKEN_LIMIT_FAILED_AUTHENTICATION_BURST,
              refillSeconds: config.TOKEN_LIMIT_FAILED_AUTHENTICATION_REFILL_SECONDS,
            },
          },
          logger,
        });
        mountOidcProvider(a, { provider: () => provider, issuer: config.AUTH_ISSUER });
      },
    });

    const http = httpEntryPoint(app, { port: config.PORT, host: config.HOST, logger });
    const housekeeping = housekeepingEntryPoint({ config, knex, logger, reloadKeys });
    const relay = new OutboxRelay({ knex, kafka, logger });
    const consumer = userEventsConsumer({
      kafka,
      knex,
      groupId: config.KAFKA_CONSUMER_GROUP,
      revocation,
      logger,
      fromBeginning: config.KAFKA_FROM_BEGINNING,
      maxWaitTimeMs: config.KAFKA_MAX_WAIT_MS,
    });
    return { entryPoints: [relay, consumer, http, housekeeping], http, consumer, reloadKeys, parts, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** Reloads signing keys and purges expired provider rows on timers. */
function housekeepingEntryPoint(deps: {
  config: AuthConfig;
  knex: Knex;
  logger: Logger;
  reloadKeys: () => Promise<boolean>;
}): EntryPoint {
  const timers: NodeJS.Timeout[] = [];
  const every = (ms: number, name: string, task: () => Promise<unknown>) => {
    const t = setInterval(() => {
      task().catch((err: unknown) => deps.logger.error({ err, task: name }, 'housekeeping task failed'));
    }, ms);
    t.unref();
    timers.push(t);
  };
  return {
    name: 'housekeeping',
    start: () => {
      every(deps.config.KEY_RELOAD_INTERVAL_MS, 'reload-signing-keys', deps.reloadKeys);
      every(10 * 60_000, 'purge-expired', () => purgeExpired(deps.knex));
      return Promise.resolve();
    },
    stop: () => {
      for (const t of timers.splice(0)) clearInterval(t);
      return Promise.resolve();
    },
  };
}

/** Starts the auth service in-process (tests, e2e). */
export async function startAuthService(
  config: AuthConfig,
  options: AuthServiceOptions = {},
): Promise<AuthService> {
  const logger = options.logger ?? createLogger({ service: config.SERVICE_NAME, level: config.LOG_LEVEL });
  const built = await buildAuthService(config, { ...options, logger });
  const running = await startInProcess(built, { service: config.SERVICE_NAME, logger });
  return {
    url: built.http.url(),
    reloadKeys: built.reloadKeys,
    waitForConsumers: (timeoutMs) => built.consumer.waitForGroupJoin(timeoutMs),
    parts: built.parts,
    stop: running.stop,
  };
}
