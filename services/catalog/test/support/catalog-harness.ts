// The catalog as integrators reach it: the real gateway (in-process, real Redis under a prefix of its
// own) verifying real RS256 tokens of a test issuer, in front of the catalog service, which learns
// accounts from the real customers service; every service on a fresh database of its own and the
// test Kafka broker. Operators' calls go to the internal admin API with the internal identity.
import { randomBytes } from 'node:crypto';
import type { Knex } from 'knex';
import request from 'supertest';
import {
  CustomersAdminClient,
  loadCustomersConfig,
  migrations as customersMigrations,
  startCustomersService,
} from '@ordering/customers-service';
import { loadGatewayConfig, startGateway } from '@ordering/gateway';
import { signIdentity } from '@ordering/http';
import { createTestDatabase, startTestIssuer, type TestIssuer } from '@ordering/testing';
import { migrations } from '../../migrations';
import { loadCatalogConfig } from '../../src/config';
import { CatalogAdminClient } from '../../src/entry-points/cli/catalog-admin-client';
import { type CatalogServiceOptions, startCatalogService } from '../../src/service';

export interface CatalogHarness {
  /** The gateway's URL. */
  url: string;
  catalogUrl: string;
  customersUrl: string;
  secret: string;
  knex: Knex;
  catalog: CatalogAdminClient;
  customers: CustomersAdminClient;
  issuer: TestIssuer;
  /** A suffix unique to this harness (account ids of parallel files must not collide). */
  suffix: string;
  /** A bearer token of a shopper of `custId`, with `scope` (default `catalog:read`). */
  token(custId: string, scope?: string): string;
  /** GET through the gateway with a token. */
  get(path: string, token: string): request.Test;
  /** The catalog service's internal API as another service calls it. */
  internal(): ReturnType<typeof request>;
  internalIdentity(): string;
  stop(): Promise<void>;
}

const brokers = () => process.env.KAFKA_BROKERS ?? '127.0.0.1:29092';

export async function startCatalogHarness(
  options: CatalogServiceOptions & { env?: Record<string, string> } = {},
): Promise<CatalogHarness> {
  const secret = `test-secret-${randomBytes(16).toString('hex')}`;
  const suffix = randomBytes(3).toString('hex').toUpperCase();
  const customersDb = await createTestDatabase({ service: 'customers', migrations: customersMigrations });
  const customersService = await startCustomersService(
    loadCustomersConfig({
      DATABASE_URL: customersDb.url,
      DATABASE_POOL_MAX: '3',
      KAFKA_BROKERS: brokers(),
      INTERNAL_IDENTITY_SECRET: secret,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      PASSWORD_HASH_COST: '10',
    }),
  );
  const db = await createTestDatabase({ service: 'catalog', migrations });
  const service = await startCatalogService(
    loadCatalogConfig({
      DATABASE_URL: db.url,
      DATABASE_POOL_MAX: '5',
      KAFKA_BROKERS: brokers(),
      INTERNAL_IDENTITY_SECRET: secret,
      CUSTOMERS_URL: customersService.url(),
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      ...options.env,
    }),
    options,
  );
  const issuer = await startTestIssuer('http://api.test');
  const gateway = await startGateway(
    loadGatewayConfig({
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      AUTH_JWKS_URL: issuer.jwksUrl,
      AUTH_ISSUER: issuer.issuer,
      API_AUDIENCE: issuer.audience,
      INTERNAL_IDENTITY_SECRET: secret,
      CATALOG_URL: service.url(),
      CUSTOMERS_URL: customersService.url(),
      REDIS_KEY_PREFIX: `${process.env.REDIS_KEY_PREFIX ?? ''}test-catalog-${suffix}:`,
      REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    }),
  );
  const internalIdentity = () =>
    signIdentity(
      {
        sub: 'service:orders',
        cust_id: '*',
        login: 'orders',
        client_id: 'service:orders',
        scopes: ['internal'],
        jti: randomBytes(8).toString('hex'),
        exp: Math.floor(Date.now() / 1000) + 600,
      },
      secret,
    );
  return {
    url: gateway.url,
    catalogUrl: service.url(),
    customersUrl: customersService.url(),
    secret,
    knex: db.knex,
    catalog: new CatalogAdminClient({ baseUrl: service.url(), internalIdentitySecret: secret }),
    customers: new CustomersAdminClient({ baseUrl: customersService.url(), internalIdentitySecret: secret }),
    issuer,
    suffix,
    token: (custId, scope = 'catalog:read') => issuer.mint({ cust_id: custId, login: 'buyer', scope }),
    get: (path, token) => request(gateway.url).get(path).set('Authorization', `Bearer ${token}`),
    internal: () => request(service.url()),
    internalIdentity,
    stop: async () => {
      await gateway.stop();
      await issuer.close();
      await service.stop();
      await customersService.stop();
      await db.drop();
      await customersDb.drop();
    },
  };
}
