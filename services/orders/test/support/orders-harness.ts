// The orders service in-process on port 0 over a fresh database, with the real customers service
// (in-process, its own database), the real test Kafka broker, a catalog stand-in that follows the
// internal pricing contract and an approvals stand-in that answers which chain applies.
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import {
  CustomersAdminClient,
  loadCustomersConfig,
  migrations as customersMigrations,
  startCustomersService,
} from '@ordering/customers-service';
import { signIdentity } from '@ordering/http';

import { migrations } from '../../migrations';
import { loadOrdersConfig } from '../../src/config';
import { type OrdersService, startOrdersService } from '../../src/service';
import {
  TEST_KAFKA_PORT,
  type CatalogStandIn,
  createTestDatabase,
  startCatalogStandIn,
  unique,
} from '@ordering/testing';

export const brokers = process.env.KAFKA_BROKERS ?? `127.0.0.1:${TEST_KAFKA_PORT}`;

export interface OrdersHarness {
  orders: OrdersService;
  catalog: CatalogStandIn;
  /** Approval chains the approvals stand-in answers, by account. */
  chains: Map<string, string[]>;
  admin: CustomersAdminClient;
  suffix: string;
  /** The orders service's consumer group (its dead letters carry it; other harnesses' do not). */
  groupId: string;
  /** The identity header the gateway would send for a token of `custId` / `login`. */
  identity(custId: string, login: string, scopes: string[]): string;
  http(): ReturnType<typeof request>;
  stop(): Promise<void>;
}

async function startChainsStandIn(chains: Map<string, string[]>) {
  const server = http.createServer((req, res) => {
    const match = /^\/internal\/v1\/customers\/([^/]+)\/effective_approval_chain$/.exec(req.url ?? '');
    if (!match) return void res.writeHead(404).end();
    const custId = decodeURIComponent(match[1]!);
    const steps = (chains.get(custId) ?? []).map((approver, i) => ({ step: i + 1, approver }));
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        object: 'approval_chain',
        cust_id: custId,
        inherited_from: steps.length ? custId : null,
        steps,
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

export async function startOrdersHarness(): Promise<OrdersHarness> {
  const secret = `test-secret-${randomBytes(8).toString('hex')}`;
  const [customersDb, ordersDb] = await Promise.all([
    createTestDatabase({ service: 'customers', migrations: customersMigrations }),
    createTestDatabase({ service: 'orders', migrations }),
  ]);
  const common = {
    DATABASE_POOL_MAX: '5',
    KAFKA_BROKERS: brokers,
    INTERNAL_IDENTITY_SECRET: secret,
    PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
  };
  const customers = await startCustomersService(
    loadCustomersConfig({ ...common, DATABASE_URL: customersDb.url, PASSWORD_HASH_COST: '10' }),
  );
  const catalog = await startCatalogStandIn((custId) => (custId.endsWith('-EU') ? 'EUR' : 'USD'));
  const chains = new Map<string, string[]>();
  const approvals = await startChainsStandIn(chains);
  const groupId = unique('orders-test');
  const orders = await startOrdersService(
    loadOrdersConfig({
      ...common,
      DATABASE_URL: ordersDb.url,
      CUSTOMERS_URL: customers.url(),
      CATALOG_URL: catalog.url,
      APPROVALS_URL: approvals.url,
      KAFKA_GROUP_ID: groupId,
      KAFKA_FROM_BEGINNING: 'false',
    }),
    { consumerTuning: { sessionTimeoutMs: 6000, heartbeatIntervalMs: 500, maxWaitTimeMs: 100 } },
  );
  await orders.parts.consumer.waitForGroupJoin(30_000);
  return {
    orders,
    catalog,
    chains,
    admin: new CustomersAdminClient({ baseUrl: customers.url(), internalIdentitySecret: secret }),
    suffix: randomBytes(3).toString('hex').toUpperCase(),
    groupId,
    identity: (custId, login, scopes) =>
      signIdentity(
        {
          sub: `shopper:${custId.toLowerCase()}:${login}`,
          cust_id: custId,
          login,
          client_id: 'client-test',
          scopes,
          jti: randomUUID(),
          exp: Math.floor(Date.now() / 1000) + 600,
        },
        secret,
      ),
    http: () => request(orders.url()),
    stop: async () => {
      await orders.stop();
      await customers.stop();
      await Promise.all([catalog.close(), approvals.close()]);
      await Promise.all([ordersDb.drop(), customersDb.drop()]);
    },
  };
}

/** An account `ACME-<suffix>` (USD, approval over $500) with a US-CA shipping address, a child
 * `-EU` (EUR, DE address), a shopper, an approver, an admin; and another account outside the tree. */
export async function seedAccounts(h: OrdersHarness) {
  const root = `ACME-${h.suffix}`;
  const other = `OTHER-${h.suffix}`;
  const address = (label: string, region: string, country: string) => ({
    type: 'shipping',
    label,
    street_1: '1 Main St',
    city: 'Springfield',
    region,
    postal_code: '90001',
    country,
  });
  await h.admin.createCustomer({
    cust_id: root,
    name: 'Acme Inc.',
    approval_required_over: 50_000,
    addresses: [address('HQ', 'CA', 'US'), { ...address('Billing', 'CA', 'US'), type: 'billing' }],
  });
  await h.admin.createCustomer({
    cust_id: `${root}-EU`,
    name: 'Acme Europe',
    parent_cust_id: root,
    currency: 'EUR',
    addresses: [address('Berlin', 'BE', 'DE')],
  });
  await h.admin.createCustomer({
    cust_id: other,
    name: 'Other Ltd',
    addresses: [address('Main', 'NY', 'US')],
  });
  const users = {
    shopper: `sam-${h.suffix}`.toLowerCase(),
    shopper2: `sue-${h.suffix}`.toLowerCase(),
    approver: `adam-${h.suffix}`.toLowerCase(),
    admin: `ada-${h.suffix}`.toLowerCase(),
    outsider: `otto-${h.suffix}`.toLowerCase(),
  };
  const mk = (login: string, custId: string, name: string, roles: string[]) =>
    h.admin.createUser({ login, cust_id: custId, name, email: `${login}@example.com`, roles });
  await mk(users.shopper, root, 'Sam Shopper', ['shopper']);
  await mk(users.shopper2, root, 'Sue Shopper', ['shopper']);
  await mk(users.approver, root, 'Adam Approver', ['approver', 'shopper']);
  await mk(users.admin, root, 'Ada Admin', ['admin']);
  await mk(users.outsider, other, 'Otto Outsider', ['shopper']);
  const accounts = await Promise.all(
    [root, `${root}-EU`, other].map(
      (c) => h.admin.getCustomer(c) as Promise<{ id: string; addresses: { id: string; type: string }[] }>,
    ),
  );
  const shippingOf = (i: number) => accounts[i]!.addresses.find((a) => a.type === 'shipping')!.id;
  const billingOf = (i: number) => accounts[i]!.addresses.find((a) => a.type === 'billing')!.id;
  return {
    root,
    child: `${root}-EU`,
    other,
    users,
    addresses: { root: shippingOf(0), rootBilling: billingOf(0), child: shippingOf(1), other: shippingOf(2) },
  };
}
