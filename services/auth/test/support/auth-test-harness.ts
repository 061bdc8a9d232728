// The auth service started in-process on a free port against a fresh PostgreSQL database, the
// shared Redis (a unique key prefix per harness) and a stand-in customers service.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import * as client from 'openid-client';
import { createLogger } from '@ordering/http';
import { REDIS_URL, createTestDatabase, type TestDatabase, freePort } from '@ordering/testing';
import { authConfigSchema, type AuthConfig } from '../../src/config';
import { ClientRepository } from '../../src/data-access/client-repository';
import { registerClient, type RegisteredClient } from '../../src/domain/client-registration-use-case';
import type { ClientRegistration } from '../../src/domain/oauth-client';
import { startAuthService, type AuthService, type AuthServiceOptions } from '../../src/service';
import { migrations } from '../../migrations';
import { startFakeCustomersService, type FakeCustomersService } from './fake-customers-service';

export const AUDIENCE = 'http://api.ordering.test';
export const REDIRECT_URI = 'http://127.0.0.1:8976/callback';

export interface AuthHarness {
  config: AuthConfig;
  service: AuthService;
  db: TestDatabase;
  redis: Redis;
  customers: FakeCustomersService;
  issuer: string;
  register(
    input: Partial<ClientRegistration> & Pick<ClientRegistration, 'type' | 'scopes'>,
  ): Promise<RegisteredClient>;
  /** openid-client configuration by discovery, authenticating with HTTP Basic (or none). */
  discover(clientId: string, clientSecret?: string): Promise<client.Configuration>;
  close(): Promise<void>;
}

export async function startAuthHarness(
  overrides: Partial<Record<keyof AuthConfig, string>> = {},
  options: AuthServiceOptions = {},
): Promise<AuthHarness> {
  const secret = randomBytes(32).toString('hex');
  const customers = await startFakeCustomersService(secret);
  const db = await createTestDatabase({ service: 'auth', migrations });
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const config = authConfigSchema.parse({
    SERVICE_NAME: 'auth',
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    NODE_ENV: 'test',
    PORT: String(port),
    HOST: '127.0.0.1',
    DATABASE_URL: db.url,
    KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:29092',
    REDIS_URL,
    KAFKA_CONSUMER_GROUP: `test-auth-${randomBytes(6).toString('hex')}`,
    // From the beginning of the run's topics (the test broker starts empty): a group that starts at
    // the end and is rebalanced before it commits anything starts at the end again, skipping what
    // was published in between.
    KAFKA_FROM_BEGINNING: 'true',
    KAFKA_MAX_WAIT_MS: '200',
    REDIS_KEY_PREFIX: `test:auth:${randomBytes(4).toString('hex')}:`,
    INTERNAL_IDENTITY_SECRET: secret,
    AUTH_ISSUER: issuer,
    API_AUDIENCE: AUDIENCE,
    CUSTOMERS_URL: customers.url,
    CLIENT_SECRET_KEY: randomBytes(32).toString('hex'),
    KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    COOKIE_KEYS: randomBytes(32).toString('hex'),
    ...overrides,
  });
  const logger = createLogger({ service: 'auth', level: config.LOG_LEVEL });
  const service = await startAuthService(config, { logger, ...options });
  const redis = new Redis(REDIS_URL);
  const clients = new ClientRepository(db.knex);

  return {
    config,
    service,
    db,
    redis,
    customers,
    issuer,
    register: (input) =>
      registerClient(
        { clients, secretKey: config.CLIENT_SECRET_KEY, now: () => new Date() },
        {
          name: 'Test client',
          custId: 'ACME',
          login: 'integration',
          ...(input.type === 'service' ? {} : { redirectUris: [REDIRECT_URI] }),
          ...input,
        },
      ),
    discover: (clientId, clientSecret) =>
      client.discovery(
        new URL(issuer),
        clientId,
        clientSecret ? { client_secret: clientSecret } : undefined,
        clientSecret ? client.ClientSecretBasic(clientSecret) : client.None(),
        { execute: [client.allowInsecureRequests] },
      ),
    close: async () => {
      await service.stop();
      const keys = await redis.keys(`${config.REDIS_KEY_PREFIX}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
      await db.drop();
      await customers.close();
    },
  };
}

/** Waits until `check` holds (polling), failing after `timeoutMs`. */
export async function waitFor(
  check: () => Promise<boolean>,
  timeoutMs = 5000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}
