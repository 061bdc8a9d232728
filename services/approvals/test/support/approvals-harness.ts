// The approvals service in-process with the real orders and customers services (in-process, each
// with its own database), the real test Kafka broker between them and a catalog stand-in that
// follows the internal pricing contract. Calls carry the identity header the gateway would send.
import { randomBytes, randomUUID } from 'node:crypto';
import request from 'supertest';
import {
  CustomersAdminClient,
  loadCustomersConfig,
  migrations as customersMigrations,
  startCustomersService,
} from '@ordering/customers-service';
import type { Knex } from '@ordering/db';
import { signIdentity } from '@ordering/http';
import {
  loadOrdersConfig,
  migrations as ordersMigrations,
  startOrdersService,
} from '@ordering/orders-service';
import {
  TEST_KAFKA_PORT,
  type CatalogStandIn,
  createTestDatabase,
  startCatalogStandIn,
  unique,
  waitUntil,
  freePort,
} from '@ordering/testing';
import { migrations } from '../../migrations';
import { loadApprovalsConfig } from '../../src/config';
import { type ApprovalsService, startApprovalsService } from '../../src/service';

const brokers = process.env.KAFKA_BROKERS ?? `127.0.0.1:${TEST_KAFKA_PORT}`;
const tuning = { sessionTimeoutMs: 6000, heartbeatIntervalMs: 500, maxWaitTimeMs: 100 };

export interface PlatformHarness {
  approvals: ApprovalsService;
  catalog: CatalogStandIn;
  admin: CustomersAdminClient;
  /** The approvals service's database, its name and a pool of the test's own (locks, lock waits). */
  approvalsDb: { name: string; knex: Knex };
  suffix: string;
  identity(custId: string, login: string, scopes: string[]): string;
  /** Calls the orders service (`orders`) or the approvals service (`approvals`) as the gateway would. */
  call(
    service: 'orders' | 'approvals',
    custId: string,
    login: string,
    scopes?: string[],
  ): ReturnType<typeof request>;
  stop(): Promise<void>;
}

export const ALL = ['orders:read', 'orders:write'];
export const ADMIN = ['admin:all'];

export async function startPlatformHarness(): Promise<PlatformHarness> {
  const secret = `test-secret-${randomBytes(8).toString('hex')}`;
  const [customersDb, ordersDb, approvalsDb] = await Promise.all([
    createTestDatabase({ service: 'customers', migrations: customersMigrations }),
    createTestDatabase({ service: 'orders', migrations: ordersMigrations }),
    createTestDatabase({ service: 'approvals', migrations }),
  ]);
  const common = {
    DATABASE_POOL_MAX: '5',
    KAFKA_BROKERS: brokers,
    INTERNAL_IDENTITY_SECRET: secret,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    KAFKA_FROM_BEGINNING: 'false',
  };
  const customers = await startCustomersService(
    loadCustomersConfig({ ...common, PORT: '0', DATABASE_URL: customersDb.url, PASSWORD_HASH_COST: '10' }),
  );
  const catalog = await startCatalogStandIn();
  const [ordersPort, approvalsPort] = [await freePort(), await freePort()];
  const [orders, approvals] = await Promise.all([
    startOrdersService(
      loadOrdersConfig({
        ...common,
        PORT: String(ordersPort),
        DATABASE_URL: ordersDb.url,
        CUSTOMERS_URL: customers.url(),
        CATALOG_URL: catalog.url,
        APPROVALS_URL: `http://127.0.0.1:${approvalsPort}`,
        KAFKA_GROUP_ID: unique('orders-test'),
      }),
      { consumerTuning: tuning },
    ),
    startApprovalsService(
      loadApprovalsConfig({
        ...common,
        PORT: String(approvalsPort),
        DATABASE_URL: approvalsDb.url,
        CUSTOMERS_URL: customers.url(),
        ORDERS_URL: `http://127.0.0.1:${ordersPort}`,
        KAFKA_GROUP_ID: unique('approvals-test'),
      }),
      { consumerTuning: tuning },
    ),
  ]);
  await Promise.all([
    orders.parts.consumer.waitForGroupJoin(30_000),
    approvals.parts.consumer.waitForGroupJoin(30_000),
  ]);
  const identity = (custId: string, login: string, scopes: string[]) =>
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
    );
  return {
    approvals,
    catalog,
    admin: new CustomersAdminClient({ baseUrl: customers.url(), internalIdentitySecret: secret }),
    approvalsDb: { name: approvalsDb.name, knex: approvalsDb.knex },
    suffix: randomBytes(3).toString('hex').toUpperCase(),
    identity,
    call: (service, custId, login, scopes = ALL) => {
      const agent = request(service === 'orders' ? orders.url() : approvals.url());
      const sign = identity(custId, login, scopes);
      return {
        get: (path: string) => agent.get(path).set('X-Ordering-Identity', sign),
        post: (path: string) => agent.post(path).set('X-Ordering-Identity', sign),
        put: (path: string) => agent.put(path).set('X-Ordering-Identity', sign),
      } as unknown as ReturnType<typeof request>;
    },
    stop: async () => {
      await Promise.all([approvals.stop(), orders.stop()]);
      await customers.stop();
      await catalog.close();
      await Promise.all([ordersDb.drop(), customersDb.drop(), approvalsDb.drop()]);
    },
  };
}

/** Waits until `probe` answers a value `accept` takes. */
export async function eventually<T>(
  probe: () => Promise<T>,
  accept: (v: T) => boolean,
  timeoutMs = 20_000,
): Promise<T> {
  let last: T | undefined;
  await waitUntil(async () => accept((last = await probe())), timeoutMs);
  return last as T;
}

/** ACME-<suffix> (approval over $500) with a child, approvers adam and april, an admin, shoppers, and OTHER. */
export async function seed(h: PlatformHarness) {
  const root = `ACME-${h.suffix}`;
  const child = `${root}-EU`;
  const other = `OTHER-${h.suffix}`;
  const addr = {
    type: 'shipping',
    label: 'HQ',
    street_1: '1 Main St',
    city: 'Springfield',
    region: 'CA',
    postal_code: '90001',
    country: 'US',
  };
  await h.admin.createCustomer({
    cust_id: root,
    name: 'Acme',
    approval_required_over: 50_000,
    addresses: [addr],
  });
  await h.admin.createCustomer({
    cust_id: child,
    name: 'Acme child',
    parent_cust_id: root,
    approval_required_over: 50_000,
    addresses: [addr],
  });
  await h.admin.createCustomer({
    cust_id: other,
    name: 'Other',
    approval_required_over: 50_000,
    addresses: [addr],
  });
  const s = h.suffix.toLowerCase();
  const u = {
    adam: `adam-${s}`,
    april: `april-${s}`,
    ada: `ada-${s}`,
    alan: `alan-${s}`,
    sam: `sam-${s}`,
    gone: `gone-${s}`,
    otto: `otto-${s}`,
  };
  const mk = (login: string, custId: string, name: string, roles: string[]) =>
    h.admin.createUser({ login, cust_id: custId, name, email: `${login}@example.com`, roles });
  await mk(u.adam, root, 'Adam Approver', ['approver', 'shopper']);
  await mk(u.april, root, 'April Approver', ['approver', 'shopper']);
  await mk(u.ada, root, 'Ada Admin', ['admin']);
  await mk(u.alan, root, 'Alan Admin', ['admin']);
  await mk(u.sam, root, 'Sam Shopper', ['shopper']);
  await mk(u.gone, root, 'Gone Approver', ['approver']);
  await mk(u.otto, other, 'Otto Other', ['approver', 'admin']);
  await h.admin.request('POST', `/internal/v1/admin/users/${u.gone}/deactivate`);
  const addressOf = async (c: string) =>
    ((await h.admin.getCustomer(c)) as unknown as { addresses: { id: string }[] }).addresses[0]!.id;
  return {
    root,
    child,
    other,
    u,
    address: { root: await addressOf(root), child: await addressOf(child), other: await addressOf(other) },
  };
}
