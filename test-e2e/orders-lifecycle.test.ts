// The whole life of orders through the real gateway with real tokens (the auth service; approvers
// and shoppers sign in with the authorization code flow on the real sign-in page), each service as
// its own process on real PostgreSQL and Kafka, every event read back from Kafka with a raw
// consumer in order for its order. The real catalog service prices every order. Every process
// exports its spans to a real Zipkin, and an order's trace is read back from it. Every answer of
// the API the tests read is also checked against the served OpenAPI document (status, required
// headers, body schema).
import { execFile } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import * as oidc from 'openid-client';
import { authCli, migrations as authMigrations } from '@ordering/auth-service';
import { migrations as approvalsMigrations } from '@ordering/approvals-service';
import { CatalogAdminClient, migrations as catalogMigrations } from '@ordering/catalog-service';
import { TOPICS } from '@ordering/contracts';
import { CustomersAdminClient, migrations as customersMigrations } from '@ordering/customers-service';
import { DEAD_LETTER_HEADERS, createKafka } from '@ordering/messaging';
import { migrations as ordersMigrations } from '@ordering/orders-service';
import { migrations as webhooksMigrations } from '@ordering/webhooks-service';
import {
  type ReadMessage,
  type TestDatabase,
  type TopicReader,
  createTestDatabase,
  readTopic,
  waitUntil,
  freePort,
} from '@ordering/testing';
import { Browser, type Page } from '../services/auth/test/support/browser';
import {
  startApprovalsProcess,
  startAuthProcess,
  startCatalogProcess,
  startCustomersProcess,
  startFullGatewayProcess,
  startOrdersProcess,
  startWebhooksProcess,
} from './support/platform-processes';
import { ResponseConformance } from './support/response-conformance';
import { type ServiceProcess } from './support/service-process';
import {
  type TestZipkin,
  type ZipkinSpan,
  spansWithoutParent,
  startTestZipkin,
} from './support/zipkin-traces';
import { authorizationRequest } from '../services/auth/test/support/authorization-request';

jest.setTimeout(120_000);

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const repoRoot = path.resolve(__dirname, '..');
const brokers = process.env.KAFKA_BROKERS ?? '127.0.0.1:29092';
const secret = randomBytes(32).toString('hex');
const suffix = randomBytes(3).toString('hex').toUpperCase();
const s = suffix.toLowerCase();
const acme = `ACME-${suffix}`;
const other = `OTHER-${suffix}`;
const audience = 'http://api.e2e.test';
const redirectUri = 'http://127.0.0.1:8976/callback';
const password = `password-${suffix}`;
const users = { sam: `sam-${s}`, adam: `adam-${s}`, april: `april-${s}`, ada: `ada-${s}`, otto: `otto-${s}` };

const dbs: TestDatabase[] = [];
let ordersDb: TestDatabase;
let authDb: TestDatabase;
let customers: ServiceProcess;
let auth: ServiceProcess & { issuer: string };
let orders: ServiceProcess;
let approvals: ServiceProcess;
let gateway: ServiceProcess;
let catalog: ServiceProcess;
let webhooks: ServiceProcess;
let zipkin: TestZipkin;
let ordersTopic: TopicReader;
let deadLetters: TopicReader;
let ordersEnv: Parameters<typeof startOrdersProcess>[0];
let ordersPort: number;
const tokens: Record<string, string> = {};
let address: { acme: string; other: string };
let conformance: ResponseConformance;

async function registerClient(custId: string, scopes: string, options: string[]) {
  let printed = '';
  await authCli({ env: { ...process.env, DATABASE_URL: authDb.url }, out: (t) => (printed += t) }).parseAsync(
    ['clients', 'register', '--name', `E2E ${custId}`, '--scopes', scopes, '--cust-id', custId, ...options],
    { from: 'user' },
  );
  return JSON.parse(printed) as { client_id: string; client_secret: string };
}

async function clientToken(
  client: { client_id: string; client_secret: string },
  scope: string,
): Promise<string> {
  const res = await fetch(`${auth.url}/oauth/token`, {
    method: 'POST',
    headers: {
      Authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
      'Content-Type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

/** Signs `login` in on the real sign-in page (code flow with PKCE); the user's own access token. */
async function signIn(config: oidc.Configuration, login: string): Promise<string> {
  const { url, verifier, state } = await authorizationRequest(config, {
    redirectUri: redirectUri,
    scope: 'openid orders:read orders:write',
  });
  const browser = new Browser(redirectUri);
  const page = await browser.open(url.href);
  const callback: Page = await browser.submit(page, '/login', { login, password });
  const res = await oidc.authorizationCodeGrant(config, new URL(callback.url), {
    pkceCodeVerifier: verifier,
    expectedState: state,
  });
  expect(res.scope?.split(' ')).toEqual(expect.arrayContaining(['orders:read', 'orders:write']));
  return res.access_token;
}

async function api(who: string, method: string, p: string, body?: unknown) {
  const res = await fetch(`${gateway.url}${p}`, {
    method,
    headers: {
      Authorization: `Bearer ${tokens[who]}`,
      ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  const answer = {
    status: res.status,
    headers: res.headers,
    body: (text ? JSON.parse(text) : undefined) as Json,
  };
  const template = conformance.templateOf(p);
  expect({
    call: `${method} ${p}`,
    problems: template ? conformance.problems(method, template, answer) : ['no path of the document'],
  }).toEqual({ call: `${method} ${p}`, problems: [] });
  return answer;
}

const small = () => ({
  cust_id: acme,
  shipping_address_id: address.acme,
  items: [
    { item_code: 'PEN-BLUE', quantity: 2 },
    { item_code: 'PAPER-A4', quantity: 3 },
  ],
});
const big = () => ({
  cust_id: acme,
  shipping_address_id: address.acme,
  items: [
    { item_code: 'CHAIR-ERGO', quantity: 2 },
    { item_code: 'PEN-BLUE', quantity: 10 },
  ],
});

async function place(body: unknown, who = 'sam'): Promise<Json> {
  const res = await api(who, 'POST', '/v1/orders', body);
  expect(res.status).toBe(201);
  return res.body;
}

/** The events of one order read back from the orders topic, in the order they arrived. */
const eventsOf = (orderId: string) =>
  ordersTopic.messages
    .filter((m) => m.key === orderId)
    .map((m) => JSON.parse(m.value!) as { id: string; type: string; cust_id: string; data: Json });
const typesOf = (orderId: string) => eventsOf(orderId).map((e) => e.type);
const waitForTypes = async (orderId: string, n: number) => {
  await ordersTopic.waitFor(() => typesOf(orderId).length >= n, 30_000);
  return typesOf(orderId);
};

async function statusBecomes(orderId: string, status: string) {
  await waitUntil(
    async () => (await api('ada', 'GET', `/v1/orders/${orderId}`)).body.status === status,
    30_000,
    status,
  );
}

async function approvalFor(who: 'adam' | 'april' | 'ada', orderId: string): Promise<Json> {
  let found: Json | undefined;
  await waitUntil(
    async () => {
      const res = await api(who, 'GET', `/v1/approvals?approver=${users[who]}&limit=100`);
      found = (res.body.data as Json[]).find((a) => a.order_id === orderId);
      return found !== undefined;
    },
    30_000,
    `approval of ${orderId} for ${who}`,
  );
  return found!;
}

async function fulfilmentViaOps(orderId: string, status: string, extra: string[] = []) {
  await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', 'deploy/ops/cli.ts', 'fulfilment', orderId, status, '--brokers', brokers, ...extra],
    { cwd: repoRoot },
  );
}

beforeAll(async () => {
  // Zipkin's JVM starts slowly: first, and waited for only by the test that reads a trace.
  zipkin = await startTestZipkin();
  const tracing = zipkin.exportEnv;
  const [customersDb, aDb, oDb, apDb, cDb, wDb] = await Promise.all([
    createTestDatabase({ service: 'customers', migrations: customersMigrations }),
    createTestDatabase({ service: 'auth', migrations: authMigrations }),
    createTestDatabase({ service: 'orders', migrations: ordersMigrations }),
    createTestDatabase({ service: 'approvals', migrations: approvalsMigrations }),
    createTestDatabase({ service: 'catalog', migrations: catalogMigrations }),
    createTestDatabase({ service: 'webhooks', migrations: webhooksMigrations }),
  ]);
  authDb = aDb!;
  ordersDb = oDb!;
  dbs.push(customersDb!, aDb!, oDb!, apDb!, cDb!, wDb!);
  const kafka = createKafka({ clientId: `e2e-orders-${suffix}`, brokers: brokers.split(',') });
  [ordersTopic, deadLetters] = await Promise.all([
    readTopic(kafka, TOPICS.orders),
    readTopic(kafka, TOPICS.deadLetter),
  ]);

  customers = await startCustomersProcess({ databaseUrl: customersDb!.url, brokers, secret, env: tracing });
  catalog = await startCatalogProcess({
    databaseUrl: cDb!.url,
    brokers,
    secret,
    customersUrl: customers.url,
    env: tracing,
  });
  const items = new CatalogAdminClient({ baseUrl: catalog.url, internalIdentitySecret: secret });
  await items.createCategory({ id: 'office', name: 'Office supplies' });
  for (const [item_code, name, pricing] of [
    [
      'PAPER-A4',
      'Copy paper A4, 500 sheets',
      [
        { min_qty: 1, amount: 899 },
        { min_qty: 10, amount: 849 },
      ],
    ],
    [
      'PEN-BLUE',
      'Ballpoint pen, blue',
      [
        { min_qty: 1, amount: 129 },
        { min_qty: 100, amount: 99 },
      ],
    ],
    [
      'CHAIR-ERGO',
      'Ergonomic office chair',
      [
        { min_qty: 1, amount: 34_900 },
        { min_qty: 5, amount: 32_900 },
      ],
    ],
  ] as const) {
    await items.createItem({
      item_code,
      name,
      description: name,
      category_id: 'office',
      currency: 'USD',
      pricing,
    });
  }
  [ordersPort] = [await freePort()];
  const approvalsPort = await freePort();
  ordersEnv = {
    databaseUrl: ordersDb.url,
    brokers,
    secret,
    customersUrl: customers.url,
    catalogUrl: catalog.url,
    approvalsUrl: `http://127.0.0.1:${approvalsPort}`,
    groupId: `orders.e2e-${suffix}`,
    // Its log lines (info: the access line of each request) carry the trace id.
    env: { ...tracing, LOG_LEVEL: 'info' },
  };
  [auth, orders, approvals] = await Promise.all([
    startAuthProcess({
      databaseUrl: authDb.url,
      brokers,
      secret,
      customersUrl: customers.url,
      audience,
      redisPrefix: `e2e-orders-${suffix}:`,
      consumerGroup: `auth.e2e-orders-${suffix}`,
      env: tracing,
    }),
    startOrdersProcess(ordersEnv, { port: ordersPort }),
    startApprovalsProcess(
      {
        databaseUrl: apDb!.url,
        brokers,
        secret,
        customersUrl: customers.url,
        ordersUrl: `http://127.0.0.1:${ordersPort}`,
        groupId: `approvals.e2e-${suffix}`,
        env: tracing,
      },
      { port: approvalsPort },
    ),
  ]);
  webhooks = await startWebhooksProcess({
    databaseUrl: wDb!.url,
    brokers,
    secret,
    customersUrl: customers.url,
    catalogUrl: catalog.url,
    groupId: `webhooks.e2e-orders-${suffix}`,
    env: tracing,
  });
  gateway = await startFullGatewayProcess({
    issuer: auth.issuer,
    audience,
    secret,
    redisPrefix: `e2e-orders-${suffix}:`,
    urls: {
      CUSTOMERS_URL: customers.url,
      ORDERS_URL: orders.url,
      APPROVALS_URL: approvals.url,
      CATALOG_URL: catalog.url,
      WEBHOOKS_URL: webhooks.url,
    },
    env: tracing,
  });
  conformance = new ResponseConformance(
    (await (await fetch(`${gateway.url}/v1/openapi.json`)).json()) as Json,
  );

  const admin = new CustomersAdminClient({ baseUrl: customers.url, internalIdentitySecret: secret });
  const addr = {
    type: 'shipping',
    label: 'HQ',
    street_1: '1 Main St',
    city: 'Springfield',
    region: 'CA',
    postal_code: '90001',
    country: 'US',
  };
  await admin.createCustomer({
    cust_id: acme,
    name: 'Acme',
    approval_required_over: 50_000,
    addresses: [addr],
  });
  await admin.createCustomer({
    cust_id: other,
    name: 'Other',
    approval_required_over: 50_000,
    addresses: [addr],
  });
  const mk = async (login: string, custId: string, name: string, roles: string[]) => {
    await admin.createUser({ login, cust_id: custId, name, email: `${login}@e2e.example`, roles });
    await admin.setPassword(login, password);
  };
  await mk(users.sam, acme, 'Sam Shopper', ['shopper']);
  await mk(users.adam, acme, 'Adam Approver', ['approver', 'shopper']);
  await mk(users.april, acme, 'April Approver', ['approver', 'shopper']);
  await mk(users.ada, acme, 'Ada Admin', ['admin']);
  await mk(users.otto, other, 'Otto Other', ['admin']);
  const addressOf = async (c: string) =>
    ((await admin.getCustomer(c)) as unknown as { addresses: { id: string }[] }).addresses[0]!.id;
  address = { acme: await addressOf(acme), other: await addressOf(other) };

  const web = await registerClient(acme, 'openid orders:read orders:write', [
    '--type',
    'web',
    '--first-party',
    '--login',
    users.ada,
    '--redirect-uri',
    redirectUri,
  ]);
  const webConfig = await oidc.discovery(
    new URL(auth.url),
    web.client_id,
    { client_secret: web.client_secret },
    oidc.ClientSecretBasic(web.client_secret),
    { execute: [oidc.allowInsecureRequests] },
  );
  const acmeAdmin = await registerClient(acme, 'admin:all orders:read orders:write', [
    '--type',
    'service',
    '--login',
    users.ada,
  ]);
  const otherAdmin = await registerClient(other, 'admin:all orders:read orders:write', [
    '--type',
    'service',
    '--login',
    users.otto,
  ]);
  tokens.ada = await clientToken(acmeAdmin, 'admin:all orders:read orders:write');
  tokens.otto = await clientToken(otherAdmin, 'admin:all orders:read orders:write');
  for (const who of ['sam', 'adam', 'april'] as const) tokens[who] = await signIn(webConfig, users[who]);
  // Integrations without admin:all: one whose login is no user's, and one issued for an admin's
  // login (as the demo acme-s2s is for alice.admin).
  const integration = await registerClient(acme, 'orders:read catalog:read', [
    '--type',
    'service',
    '--login',
    `acme-s2s-${s}`,
  ]);
  tokens.s2s = await clientToken(integration, 'orders:read');
  tokens.s2sCatalog = await clientToken(integration, 'catalog:read');
  tokens.adaRead = await clientToken(acmeAdmin, 'orders:read');

  const chain = await api('ada', 'PUT', `/v1/customers/${acme}/approval_chain`, {
    steps: [{ approver: users.adam }, { approver: users.april }],
  });
  expect(chain.status).toBe(200);
  // Eight processes and Zipkin's JVM start here: a bound for a machine other test runs load too.
}, 240_000);

afterAll(async () => {
  await Promise.all([ordersTopic?.stop(), deadLetters?.stop()]);
  await Promise.all([gateway, webhooks, approvals, orders, auth, catalog, customers].map((p) => p?.stop()));
  await Promise.all([...dbs.map((d) => d.drop()), zipkin?.stop()]);
});

// First in this file: the account is not yet cached by the orders process (see customersRequest).
it('an order placed with a client-credentials token is ONE trace in Zipkin: gateway, orders and its queries, catalog pricing, customers, the outbox relay, the consumers, the webhook attempt, parents right', async () => {
  // A receiver of the account's order.submitted webhooks (the webhooks service allows http://127.0.0.1).
  const received: { delivery: string; event: Json }[] = [];
  const receiver = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      received.push({ delivery: String(req.headers['service-delivery']), event: JSON.parse(body) as Json });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  try {
    await placeTracedOrder(receiver, received);
  } finally {
    receiver.closeAllConnections();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
  }
});

async function placeTracedOrder(receiver: http.Server, received: { delivery: string; event: Json }[]) {
  const subscription = await api('ada', 'POST', '/v1/webhooks', {
    url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`,
    events: ['order.submitted'],
  });
  expect(subscription.status).toBe(201);
  await zipkin.ready();

  // tokens.ada: the account's server-to-server client (client credentials). Over the threshold, so
  // the approvals consumer works on its order.submitted (one that needs no approval is filtered
  // out before any transaction or span: libs/messaging README, "filters").
  const placed = await fetch(`${gateway.url}/v1/orders`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${tokens.ada}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(big()),
  });
  expect(placed.status).toBe(201);
  const order = (await placed.json()) as Json;
  const requestId = placed.headers.get('x-request-id');
  const [, traceId, rootSpanId, flags] = (placed.headers.get('traceresponse') ?? '').split('-');
  expect(traceId).toMatch(/^[0-9a-f]{32}$/);
  expect(flags).toBe('01');

  // Zipkin answers span names in lower case.
  const hopsOf = (spans: ZipkinSpan[]) => {
    const by = (service: string, kind: ZipkinSpan['kind'], name: RegExp, tags: Record<string, string> = {}) =>
      spans.find(
        (s) =>
          s.localEndpoint?.serviceName === service &&
          s.kind === kind &&
          name.test(s.name) &&
          Object.entries(tags).every(([k, v]) => s.tags?.[k] === v),
      );
    const submitted = { 'ordering.event_type': 'order.submitted' };
    return {
      gatewayRequest: by('gateway', 'SERVER', /^post \/v1\/orders$/),
      admission: by('gateway', undefined, /^gateway admission$/),
      forward: by('gateway', 'CLIENT', /^forward orders$/),
      ordersRequest: by('orders', 'SERVER', /^post \/v1\/orders$/),
      // The order, its lines and its events are written by one statement (`with ... insert`).
      orderWrite: by('orders', 'CLIENT', /^with orders$/),
      pricingCall: by('orders', 'CLIENT', /^post catalog$/),
      catalogRequest: by('catalog', 'SERVER', /^post \/internal\/v1\/catalog\/prices$/),
      catalogQuery: by('catalog', 'CLIENT', /^(select|with) /),
      // The account (addresses, approval threshold): read, as this is the orders process's first
      // order (the placement path reuses an account it read for 5 s).
      customersRequest: by('customers', 'SERVER', /^get \/internal\/v1\/customers\/\{cust_id\}$/),
      submittedPublish: by('orders', 'PRODUCER', /^ordering\.orders\.v1 publish$/, submitted),
      approvalsConsume: by('approvals', 'CONSUMER', /^ordering\.orders\.v1 process$/, submitted),
      webhooksConsume: by('webhooks', 'CONSUMER', /^ordering\.orders\.v1 process$/, submitted),
      webhookAttempt: by('webhooks', 'CLIENT', /^webhook order\.submitted attempt$/),
    };
  };
  // Complete: every hop, and no span whose parent is still on its way from another process.
  const spans = await zipkin.waitForTrace(
    traceId!,
    (s) => Object.values(hopsOf(s)).every(Boolean) && spansWithoutParent(s).length === 0,
    45_000,
  );
  const hops = hopsOf(spans);
  const parentOf = (name: keyof typeof hops) => hops[name]!.parentId;
  const idOf = (name: keyof typeof hops) => hops[name]!.id;
  const tagsOf = (name: keyof typeof hops) => hops[name]!.tags ?? {};

  // One trace: its only root is the gateway's request span, which traceresponse names, and every
  // other span's parent is in the trace.
  expect(new Set(spans.map((s) => s.traceId))).toEqual(new Set([traceId]));
  expect(spans.filter((s) => !s.parentId).map((s) => s.id)).toEqual([rootSpanId]);
  expect(idOf('gatewayRequest')).toBe(rootSpanId);
  expect(spansWithoutParent(spans)).toEqual([]);
  expect(new Set(spans.map((s) => s.localEndpoint?.serviceName))).toEqual(
    new Set(['gateway', 'orders', 'catalog', 'customers', 'approvals', 'webhooks']),
  );
  // The gateway admits and forwards; the orders use case runs under the forward and calls the
  // catalog (pricing) and customers (the account) under its own span, whose queries those are.
  expect(parentOf('admission')).toBe(idOf('gatewayRequest'));
  expect(parentOf('forward')).toBe(idOf('gatewayRequest'));
  expect(parentOf('ordersRequest')).toBe(idOf('forward'));
  expect(parentOf('orderWrite')).toBe(idOf('ordersRequest'));
  expect(tagsOf('orderWrite')['db.query.text']).toMatch(/^with "placed_order" as \(insert into "orders"/);
  expect(parentOf('pricingCall')).toBe(idOf('ordersRequest'));
  expect(parentOf('catalogRequest')).toBe(idOf('pricingCall'));
  expect(parentOf('catalogQuery')).toBe(idOf('catalogRequest'));
  const customersCall = spans.find((s) => s.id === parentOf('customersRequest'));
  expect(customersCall).toMatchObject({
    name: 'get customers',
    kind: 'CLIENT',
    parentId: idOf('ordersRequest'),
  });
  expect(customersCall!.localEndpoint?.serviceName).toBe('orders');
  // The relay publishes later, in the request's trace; each consumer continues the message's.
  expect(parentOf('submittedPublish')).toBe(idOf('ordersRequest'));
  expect(parentOf('approvalsConsume')).toBe(idOf('submittedPublish'));
  expect(parentOf('webhooksConsume')).toBe(idOf('submittedPublish'));
  // The delivery attempt, made by the delivery worker after the consumer's commit, joins it too.
  expect(parentOf('webhookAttempt')).toBe(idOf('webhooksConsume'));

  // What on-call searches by, where it belongs.
  expect(tagsOf('gatewayRequest')).toMatchObject({
    'ordering.request_id': requestId,
    'ordering.cust_id': acme,
  });
  expect(tagsOf('ordersRequest')).toMatchObject({
    'ordering.order_id': order.id,
    'ordering.request_id': requestId,
    'ordering.cust_id': acme,
  });
  const eventId = tagsOf('submittedPublish')['ordering.event_id'];
  expect(eventId).toMatch(/^evt_/);
  expect(tagsOf('approvalsConsume')['ordering.event_id']).toBe(eventId);
  expect(tagsOf('webhooksConsume')['ordering.event_id']).toBe(eventId);
  // The receiver got the delivery the attempt names, of the event the trace published.
  await waitUntil(() => received.length > 0, 10_000, 'the delivery at the receiver');
  expect(received).toHaveLength(1);
  expect(received[0]!.event).toMatchObject({ id: eventId, type: 'order.submitted', data: { id: order.id } });
  expect(tagsOf('webhookAttempt')).toMatchObject({
    'ordering.delivery_id': received[0]!.delivery,
    'ordering.event_id': eventId,
    'ordering.subscription_id': subscription.body.id,
    'http.response.status_code': '204',
  });
  // An integrator's request id, or the new order's id, finds this trace and no other.
  expect(await zipkin.traceIdsWhere(`ordering.request_id=${requestId}`)).toEqual([traceId]);
  expect(await zipkin.traceIdsWhere(`ordering.order_id=${order.id}`)).toEqual([traceId]);
  // The orders service's log line of the request carries the trace id.
  const logLines = orders
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Json);
  expect(logLines.filter((l) => l.trace_id === traceId)).toContainEqual(
    expect.objectContaining({
      request_id: requestId,
      req: expect.objectContaining({ method: 'POST', url: '/v1/orders' }),
      res: { statusCode: 201 },
    }),
  );

  expect((await api('ada', 'DELETE', `/v1/webhooks/${subscription.body.id}`)).status).toBe(200);
}

it('under the threshold: approved at once; order.submitted then order.approved', async () => {
  const order = await place(small());
  expect(order).toMatchObject({ status: 'approved', ordered_by: { login: users.sam, name: 'Sam Shopper' } });
  expect(order.approved_at).toEqual(expect.any(String));
  expect(await waitForTypes(order.id, 2)).toEqual(['order.submitted', 'order.approved']);
  const [submitted] = eventsOf(order.id);
  expect(submitted).toMatchObject({
    object: 'event',
    api_version: 'v1',
    cust_id: acme,
    data: { id: order.id, total: order.total },
  });
});

it("over the threshold: through both steps with each approver's own signed-in token, ending approved", async () => {
  const order = await place(big());
  expect(order.status).toBe('pending_approval');
  const first = await approvalFor('adam', order.id);
  expect((await api('april', 'POST', `/v1/approvals/${first.id}/approve`, {})).status).toBe(404);
  expect((await api('adam', 'POST', `/v1/approvals/${first.id}/approve`, { comment: 'fine' })).status).toBe(
    200,
  );
  const second = await approvalFor('april', order.id);
  expect(second.step).toBe(2);
  expect((await api('april', 'POST', `/v1/approvals/${second.id}/approve`)).status).toBe(200);
  await statusBecomes(order.id, 'approved');
  expect(await waitForTypes(order.id, 4)).toEqual([
    'order.submitted',
    'order.approval.requested',
    'order.approval.requested',
    'order.approved',
  ]);
  const requested = eventsOf(order.id).filter((e) => e.type === 'order.approval.requested');
  expect(requested.map((e) => e.data.approval)).toEqual([
    { id: first.id, approver: users.adam, step: 1 },
    { id: second.id, approver: users.april, step: 2 },
  ]);
  expect((await api('adam', 'POST', `/v1/approvals/${first.id}/approve`)).body.error.code).toBe(
    'approval_not_pending',
  );
});

it('a rejection cancels the order with order.rejected', async () => {
  const order = await place(big());
  const first = await approvalFor('adam', order.id);
  expect(
    (await api('adam', 'POST', `/v1/approvals/${first.id}/reject`, { reason: 'Too expensive' })).status,
  ).toBe(200);
  await statusBecomes(order.id, 'cancelled');
  expect(await waitForTypes(order.id, 3)).toEqual([
    'order.submitted',
    'order.approval.requested',
    'order.rejected',
  ]);
  expect(eventsOf(order.id)[2]!.data).toMatchObject({
    status: 'cancelled',
    rejection: { reason: 'Too expensive', rejected_by: { login: users.adam, name: 'Adam Approver' } },
    cancellation: { reason: 'Too expensive' },
  });
});

it('fulfilment to delivered (pnpm ops fulfilment), cancel refused from every later status, an illegal update dead-lettered', async () => {
  const order = await place(small());
  const cancel = () => api('sam', 'POST', `/v1/orders/${order.id}/cancel`, {});
  await fulfilmentViaOps(order.id, 'in_production');
  await statusBecomes(order.id, 'in_production');
  expect((await cancel()).body.error).toMatchObject({
    type: 'invalid_request',
    code: 'order_not_cancellable',
  });
  // Illegal: back to nothing, skipping shipped.
  await fulfilmentViaOps(order.id, 'delivered');
  // This platform's orders service's letter: other e2e files' orders services read the same topic
  // on the shared broker and dead-letter the update as an order they do not know.
  const ours = (m: ReadMessage) =>
    m.key === order.id && (m.headers[DEAD_LETTER_HEADERS.consumerGroup] ?? '').startsWith(ordersEnv.groupId);
  const letters = await deadLetters.waitFor((ms) => ms.some(ours), 30_000);
  expect(letters.find(ours)!.headers[DEAD_LETTER_HEADERS.error]).toMatch(
    /illegal transition.*in_production.*delivered/,
  );
  await fulfilmentViaOps(order.id, 'shipped', [
    '--carrier',
    'UPS',
    '--tracking',
    '1Z42',
    '--estimated-delivery',
    '2026-12-01',
  ]);
  await statusBecomes(order.id, 'shipped');
  expect((await cancel()).status).toBe(409);
  await fulfilmentViaOps(order.id, 'delivered');
  await statusBecomes(order.id, 'delivered');
  expect((await cancel()).status).toBe(409);
  expect(await waitForTypes(order.id, 5)).toEqual([
    'order.submitted',
    'order.approved',
    'order.in_production',
    'order.shipped',
    'order.delivered',
  ]);
  expect(eventsOf(order.id)[3]!.data).toMatchObject({
    status: 'shipped',
    shipment: { carrier: 'UPS', tracking_number: '1Z42', estimated_delivery: '2026-12-01' },
  });
});

it('cancel from pending_approval (withdrawing the approval) and from approved; a cancelled order refuses a second cancel', async () => {
  const pending = await place(big());
  const approval = await approvalFor('adam', pending.id);
  // The orders service records the open approval (order.approval.requested) when it consumes the
  // approvals service's event, a moment after the approval exists: cancel once it has.
  expect(await waitForTypes(pending.id, 2)).toEqual(['order.submitted', 'order.approval.requested']);
  const res = await api('sam', 'POST', `/v1/orders/${pending.id}/cancel`, { reason: 'No longer needed' });
  expect(res.body).toMatchObject({
    status: 'cancelled',
    cancellation: { cancelled_by: { login: users.sam }, reason: 'No longer needed' },
  });
  await waitUntil(
    async () => (await api('adam', 'POST', `/v1/approvals/${approval.id}/approve`)).status === 409,
    30_000,
    'withdrawn',
  );
  expect((await api('sam', 'POST', `/v1/orders/${pending.id}/cancel`)).body.error.code).toBe(
    'order_not_cancellable',
  );
  const approved = await place(small());
  expect((await api('sam', 'POST', `/v1/orders/${approved.id}/cancel`)).body.status).toBe('cancelled');
  expect(await waitForTypes(pending.id, 3)).toEqual([
    'order.submitted',
    'order.approval.requested',
    'order.cancelled',
  ]);
  expect(await waitForTypes(approved.id, 3)).toEqual([
    'order.submitted',
    'order.approved',
    'order.cancelled',
  ]);
  expect(eventsOf(pending.id)[2]!.data.cancellation).toEqual({
    cancelled_by: { login: users.sam, name: 'Sam Shopper' },
    reason: 'No longer needed',
  });
});

it('approve racing cancel: the order ends cancelled and no order.approved follows order.cancelled', async () => {
  const order = await place(big());
  const first = await approvalFor('adam', order.id);
  await api('adam', 'POST', `/v1/approvals/${first.id}/approve`);
  const second = await approvalFor('april', order.id);
  const [approve, cancel] = await Promise.all([
    api('april', 'POST', `/v1/approvals/${second.id}/approve`),
    api('sam', 'POST', `/v1/orders/${order.id}/cancel`, { reason: 'race' }),
  ]);
  expect(cancel.status).toBe(200);
  expect([200, 409]).toContain(approve.status);
  // Whatever came first, the order is cancelled in the end and stays so.
  await new Promise((r) => setTimeout(r, 1500));
  expect((await api('ada', 'GET', `/v1/orders/${order.id}`)).body.status).toBe('cancelled');
  const types = typesOf(order.id);
  expect(types.slice(-1)).toEqual(['order.cancelled']);
  expect(types.filter((t) => t === 'order.cancelled')).toHaveLength(1);
});

it("another account's orders and approvals are 404 everywhere", async () => {
  const order = await place(big());
  const approval = await approvalFor('adam', order.id);
  expect((await api('otto', 'GET', `/v1/orders/${order.id}`)).status).toBe(404);
  expect((await api('otto', 'POST', `/v1/orders/${order.id}/cancel`)).status).toBe(404);
  expect((await api('otto', 'POST', `/v1/approvals/${approval.id}/approve`)).status).toBe(404);
  expect((await api('otto', 'POST', `/v1/approvals/${approval.id}/reject`, { reason: 'x' })).status).toBe(
    404,
  );
  expect((await api('otto', 'GET', `/v1/orders?cust_id=${acme}`)).status).toBe(404);
  expect((await api('otto', 'GET', `/v1/approvals?approver=${users.adam}`)).status).toBe(404);
  expect((await api('otto', 'GET', `/v1/customers/${acme}/approval_chain`)).status).toBe(404);
  expect(
    (await api('otto', 'POST', '/v1/orders', { ...small(), shipping_address_id: address.other })).status,
  ).toBe(404);
  const list = await api('otto', 'GET', '/v1/orders');
  expect(list.body.data).toEqual([]);
  // A shopper reads only their own orders; the approver also the ones in the queue.
  expect((await api('sam', 'GET', `/v1/orders/${order.id}`)).status).toBe(200);
  expect((await api('april', 'GET', `/v1/orders/${order.id}`)).status).toBe(404);
  expect((await api('adam', 'GET', `/v1/orders/${order.id}`)).status).toBe(200);
});

it("an integration reads any approver's queue of its tree with orders:read; a shopper only its own", async () => {
  const order = await place(big());
  const approval = await approvalFor('adam', order.id);
  for (const who of ['s2s', 'adaRead']) {
    const res = await api(who, 'GET', `/v1/approvals?approver=${users.adam}&limit=100`);
    expect(res.status).toBe(200);
    expect(res.headers.get('www-authenticate')).toBeNull();
    expect((res.body.data as Json[]).find((a) => a.id === approval.id)).toMatchObject({
      object: 'approval',
      approver: users.adam,
      cust_id: acme,
      status: 'pending',
      order: { id: order.id },
    });
  }
  // Another approver's queue with a shopper's or approver's own token: 404 like an unknown login.
  for (const who of ['sam', 'april']) {
    const res = await api(who, 'GET', `/v1/approvals?approver=${users.adam}`);
    expect(res.status).toBe(404);
    expect(res.headers.get('www-authenticate')).toBeNull();
    expect(res.body.error).toMatchObject({
      type: 'invalid_request',
      code: 'resource_missing',
      param: 'approver',
      request_id: res.headers.get('x-request-id'),
    });
  }
  expect((await api('adam', 'GET', `/v1/approvals?approver=${users.adam}`)).status).toBe(200);
  // An approver of another account's tree is not found for the integration either.
  expect((await api('s2s', 'GET', `/v1/approvals?approver=${users.otto}`)).body.error).toMatchObject({
    code: 'resource_missing',
    param: 'approver',
  });
  // The one 403 left is the missing scope, with the challenge naming it.
  const noScope = await api('s2sCatalog', 'GET', `/v1/approvals?approver=${users.adam}`);
  expect(noScope.status).toBe(403);
  expect(noScope.body.error).toMatchObject({ type: 'permission_error', code: 'insufficient_scope' });
  expect(noScope.headers.get('www-authenticate')).toBe(
    'Bearer error="insufficient_scope", scope="orders:read"',
  );
});

it('an approver demoted while an order waits for them: refused 403, the approval reaches the admin (order.approval.requested), who approves; the order ends approved', async () => {
  const order = await place(big());
  const first = await approvalFor('adam', order.id);
  const demoted = await api('ada', 'PATCH', `/v1/users/${users.adam}`, { roles: ['shopper'] });
  expect(demoted.status).toBe(200);
  expect(demoted.body.roles).toEqual(['shopper']);
  try {
    // Adam's token still works (a shopper's scopes), but he decides nothing any more.
    const refused = await api('adam', 'POST', `/v1/approvals/${first.id}/approve`, {});
    expect({ status: refused.status, error: refused.body.error }).toEqual({
      status: 403,
      error: expect.objectContaining({ type: 'permission_error', code: 'approver_role_required' }),
    });
    const moved = await approvalFor('ada', order.id);
    expect(moved).toMatchObject({ step: 1, status: 'pending', reassigned_from: users.adam });
    expect((await api('ada', 'POST', `/v1/approvals/${moved.id}/approve`, {})).status).toBe(200);
    const second = await approvalFor('april', order.id);
    expect((await api('april', 'POST', `/v1/approvals/${second.id}/approve`)).status).toBe(200);
    await statusBecomes(order.id, 'approved');
    expect(await waitForTypes(order.id, 5)).toEqual([
      'order.submitted',
      'order.approval.requested',
      'order.approval.requested',
      'order.approval.requested',
      'order.approved',
    ]);
    const requested = eventsOf(order.id).filter((e) => e.type === 'order.approval.requested');
    expect(requested.map((e) => e.data.approval)).toEqual([
      { id: first.id, approver: users.adam, step: 1 },
      { id: moved.id, approver: users.ada, step: 1 },
      { id: second.id, approver: users.april, step: 2 },
    ]);
    // Withdrawn from adam's queue with the reason; the role change was no webhook nor dead letter.
    const withdrawn = await api('adam', 'GET', `/v1/approvals?approver=${users.adam}&status=withdrawn`);
    expect((withdrawn.body.data as Json[]).find((a) => a.id === first.id)).toMatchObject({
      reason: `${users.adam} no longer holds the approver or the admin role`,
    });
    expect(deadLetters.messages.filter((m) => m.key === users.adam)).toEqual([]);
  } finally {
    const restored = await api('ada', 'PATCH', `/v1/users/${users.adam}`, { roles: ['approver', 'shopper'] });
    expect(restored.status).toBe(200);
  }
});

it('the same Idempotency-Key from 20 parallel callers through the gateway gives one order', async () => {
  const key = randomUUID();
  const answers = await Promise.all(
    Array.from({ length: 20 }, () =>
      fetch(`${gateway.url}/v1/orders`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${tokens.sam}`,
          'Content-Type': 'application/json',
          'Idempotency-Key': key,
        },
        body: JSON.stringify({ ...small(), po_number: key }),
      }).then(async (r) => ({ status: r.status, body: (await r.json()) as Json })),
    ),
  );
  const ids = new Set(answers.filter((a) => a.status === 201).map((a) => a.body.id));
  expect(ids.size).toBe(1);
  expect(answers.every((a) => a.status === 201 || a.body.error?.code === 'idempotency_key_in_use')).toBe(
    true,
  );
  const listed = await api('sam', 'GET', '/v1/orders?limit=100');
  expect(listed.body.data.filter((o: { po_number: string }) => o.po_number === key)).toHaveLength(1);
});

it('a kill -9 of the orders service right after the commit loses no event', async () => {
  // A replica that commits orders but leaves publishing to others, killed at once after answering.
  await orders.stop();
  orders = await startOrdersProcess(
    { ...ordersEnv, env: { ...ordersEnv.env, OUTBOX_RELAY_ENABLED: 'false' } },
    { port: ordersPort },
  );
  const order = await place(small());
  await orders.kill();
  expect(typesOf(order.id)).toEqual([]);
  orders = await startOrdersProcess(ordersEnv, { port: ordersPort });
  expect(await waitForTypes(order.id, 2)).toEqual(['order.submitted', 'order.approved']);
  expect((await api('ada', 'GET', `/v1/orders/${order.id}`)).body.status).toBe('approved');
});

it('a catalog that is down: 503 service_unavailable through the gateway, nothing written', async () => {
  const before = await api('ada', 'GET', '/v1/orders?limit=100');
  await catalog.stop();
  const res = await api('sam', 'POST', '/v1/orders', small());
  expect(res.status).toBe(503);
  expect(res.body.error).toMatchObject({ type: 'api_error', code: 'service_unavailable' });
  const after = await api('ada', 'GET', '/v1/orders?limit=100');
  expect(after.body.data.map((o: Json) => o.id)).toEqual(before.body.data.map((o: Json) => o.id));
});
