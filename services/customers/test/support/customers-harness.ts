// The customers service started in-process on port 0 over a fresh database (copied from a migrated
// template), the real test Kafka broker, and helpers to call it as the gateway and operators do.
import { randomBytes, randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import request from 'supertest';
import { type Identity, signIdentity } from '@ordering/http';
import { createTestDatabase } from '@ordering/testing';
import { migrations } from '../../migrations';
import { loadCustomersConfig } from '../../src/config';
import { CustomersAdminClient } from '../../src/entry-points/cli/customers-admin-client';
import { type CustomersServiceOptions, startCustomersService } from '../../src/service';

export interface Harness {
  url: string;
  /** The internal identity secret the service was started with. */
  secret: string;
  knex: Knex;
  admin: CustomersAdminClient;
  /** A suffix unique to this harness, for ids that other test files must not collide with. */
  suffix: string;
  /** The `X-Ordering-Identity` header the gateway would send for a token. */
  identity(custId: string, scopes: string[], options?: { login?: string; clientId?: string }): string;
  /** The identity header of an internal caller (another service). */
  internalIdentity(): string;
  http(): ReturnType<typeof request>;
  stop(): Promise<void>;
}

export async function startHarness(
  options: CustomersServiceOptions & { env?: Record<string, string> } = {},
): Promise<Harness> {
  const db = await createTestDatabase({ service: 'customers', migrations });
  const secret = `test-secret-${randomBytes(8).toString('hex')}`;
  const config = loadCustomersConfig({
    SERVICE_NAME: 'customers',
    DATABASE_URL: db.url,
    DATABASE_POOL_MAX: '10',
    KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:29092',
    INTERNAL_IDENTITY_SECRET: secret,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    PASSWORD_HASH_COST: '12',
    ...options.env,
  });
  const service = await startCustomersService(config, options);
  const sign = (identity: Omit<Identity, 'jti' | 'exp'>) =>
    signIdentity({ ...identity, jti: randomUUID(), exp: Math.floor(Date.now() / 1000) + 600 }, secret);
  return {
    url: service.url(),
    secret,
    knex: db.knex,
    suffix: randomBytes(3).toString('hex').toUpperCase(),
    admin: new CustomersAdminClient({ baseUrl: service.url(), internalIdentitySecret: secret }),
    identity: (custId, scopes, o = {}) =>
      sign({
        sub: `shopper:${custId.toLowerCase()}:${o.login ?? 'tester'}`,
        cust_id: custId,
        login: o.login ?? 'tester',
        client_id: o.clientId ?? 'client-test',
        scopes,
      }),
    internalIdentity: () =>
      sign({
        sub: 'service:auth',
        cust_id: '*',
        login: 'auth',
        client_id: 'service:auth',
        scopes: ['internal'],
      }),
    http: () => request(service.url()),
    stop: async () => {
      await service.stop();
      await db.drop();
    },
  };
}

/** A top-level account with a child and a grandchild: `${P}`, `${P}-EU`, `${P}-EU-DE`. */
export async function createTree(
  h: Harness,
  prefix: string,
): Promise<{ root: string; child: string; grandchild: string }> {
  const root = `${prefix}-${h.suffix}`;
  await h.admin.createCustomer({ cust_id: root, name: `${prefix} Inc.`, approval_required_over: 50000 });
  await h.admin.createCustomer({
    cust_id: `${root}-EU`,
    name: `${prefix} Europe`,
    parent_cust_id: root,
    currency: 'EUR',
  });
  await h.admin.createCustomer({
    cust_id: `${root}-EU-DE`,
    name: `${prefix} Germany`,
    parent_cust_id: `${root}-EU`,
    currency: 'EUR',
  });
  return { root, child: `${root}-EU`, grandchild: `${root}-EU-DE` };
}
