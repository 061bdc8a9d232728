// Real answers conform to the served OpenAPI document: the customers service runs in-process behind
// the gateway (real PostgreSQL, Kafka and Redis, a real RS256 issuer), and the bodies, statuses and
// required headers of GET /v1/customers, GET /v1/users, POST /v1/users and error answers are checked
// against the document fetched from GET /v1/openapi.json, with a JSON Schema 2020-12 validator (the
// dialect of OpenAPI 3.1).
import { randomBytes, randomUUID } from 'node:crypto';
import {
  CustomersAdminClient,
  loadCustomersConfig,
  migrations,
  startCustomersService,
} from '@ordering/customers-service';
import { type RunningGateway, loadGatewayConfig, startGateway } from '@ordering/gateway';
import { type TestDatabase, type TestIssuer, createTestDatabase, startTestIssuer } from '@ordering/testing';
import Ajv2020 from 'ajv/dist/2020';
import { ResponseConformance } from './support/response-conformance';

jest.setTimeout(60_000);

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const secret = randomBytes(32).toString('hex');
const suffix = randomBytes(3).toString('hex').toUpperCase();
const custId = `OAS-${suffix}`;

let issuer: TestIssuer;
let db: TestDatabase;
let customers: { url(): string; stop(): Promise<void> };
let gateway: RunningGateway;
let document: Json;
let conformance: ResponseConformance;

async function call(
  method: string,
  path: string,
  options: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Headers; body: unknown }> {
  const res = await fetch(`${gateway.url}${path}`, {
    method,
    headers: {
      ...(options.token ? { Authorization: `Bearer ${options.token}` } : {}),
      ...(options.body === undefined ? {} : { 'Content-Type': 'application/json' }),
      ...options.headers,
    },
    ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

beforeAll(async () => {
  issuer = await startTestIssuer();
  db = await createTestDatabase({ service: 'customers', migrations });
  customers = await startCustomersService(
    loadCustomersConfig({
      SERVICE_NAME: 'customers',
      DATABASE_URL: db.url,
      KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:29092',
      INTERNAL_IDENTITY_SECRET: secret,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      PASSWORD_HASH_COST: '10',
    }),
  );
  gateway = await startGateway(
    loadGatewayConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      PORT: '0',
      HOST: '127.0.0.1',
      AUTH_JWKS_URL: issuer.jwksUrl,
      AUTH_ISSUER: issuer.issuer,
      API_AUDIENCE: issuer.audience,
      INTERNAL_IDENTITY_SECRET: secret,
      REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
      REDIS_KEY_PREFIX: `test:e2e-openapi:${suffix}:`,
      CUSTOMERS_URL: customers.url(),
    }),
  );
  const admin = new CustomersAdminClient({ baseUrl: customers.url(), internalIdentitySecret: secret });
  await admin.createCustomer({
    cust_id: custId,
    name: 'OpenAPI Conformance Inc.',
    approval_required_over: 50000,
  });
  await admin.createCustomer({
    cust_id: `${custId}-EU`,
    name: 'OpenAPI Europe',
    parent_cust_id: custId,
    currency: 'EUR',
  });
  await admin.addAddress(custId, {
    type: 'shipping',
    label: 'HQ',
    street_1: 'Hauptstr. 1',
    city: 'Berlin',
    region: 'BE',
    postal_code: '10115',
    country: 'DE',
  });

  const served = await fetch(`${gateway.url}/v1/openapi.json`);
  expect(served.status).toBe(200);
  document = (await served.json()) as Json;
  conformance = new ResponseConformance(document);
});

afterAll(async () => {
  await gateway?.stop();
  await customers?.stop();
  await db?.drop();
  await issuer?.close();
});

const token = (scope: string) => issuer.mint({ cust_id: custId, login: 'integrator', scope });

describe('real answers conform to the served OpenAPI document', () => {
  it('GET /v1/customers and /v1/customers/{cust_id}: the document names every field of the answer', async () => {
    const list = await call('GET', '/v1/customers', { token: token('orders:read') });
    const one = await call('GET', `/v1/customers/${custId}`, { token: token('orders:read') });
    expect([list.status, one.status]).toEqual([200, 200]);
    expect((one.body as Json).addresses.length).toBeGreaterThan(0);
    expect(conformance.undocumentedFields('GET', '/v1/customers', list.body)).toEqual([]);
    expect(conformance.undocumentedFields('GET', '/v1/customers/{cust_id}', one.body)).toEqual([]);
  });

  it('resources stay loose without additionalProperties {}: an answer with a field added later still conforms', async () => {
    const one = await call('GET', `/v1/customers/${custId}`, { token: token('orders:read') });
    expect(one.status).toBe(200);
    expect(document.components.schemas.Customer.additionalProperties).toBeUndefined();
    const added = { ...one, body: { ...(one.body as Json), added_in_v1_later: { any: 'shape' } } };
    expect(conformance.problems('GET', '/v1/customers/{cust_id}', added)).toEqual([]);
    const tampered = { ...one, body: { ...(one.body as Json), name: 42 } };
    expect(conformance.problems('GET', '/v1/customers/{cust_id}', tampered)).not.toEqual([]);
  });

  it('GET /v1/customers: a CustomerList of the account tree', async () => {
    const res = await call('GET', '/v1/customers?limit=1', { token: token('orders:read') });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'list', has_more: true, data: [{ id: custId }] });
    expect(conformance.problems('GET', '/v1/customers', res)).toEqual([]);
    const next = await call('GET', `/v1/customers?starting_after=${(res.body as Json).next_cursor}`, {
      token: token('orders:read'),
    });
    expect((next.body as Json).data.map((c: Json) => c.id)).toEqual([`${custId}-EU`]);
    expect(conformance.problems('GET', '/v1/customers', next)).toEqual([]);
    const outside = await call('GET', '/v1/customers?parent_cust_id=SOMEONE-ELSE', {
      token: token('orders:read'),
    });
    expect([outside.status, (outside.body as Json).data]).toEqual([200, []]);
    expect(conformance.problems('GET', '/v1/customers', outside)).toEqual([]);
  });

  it('POST /v1/users answers 201 with a User; GET /v1/users a UserList', async () => {
    const login = `oas.${randomUUID().slice(0, 8)}`;
    const created = await call('POST', '/v1/users', {
      token: token('users:write'),
      body: { login, email: `${login}@example.com`, name: 'Ann Conformance', roles: ['shopper', 'approver'] },
    });
    expect(created.status).toBe(201);
    expect(conformance.problems('POST', '/v1/users', created)).toEqual([]);

    const listed = await call('GET', '/v1/users?status=active', { token: token('users:read') });
    expect(listed.status).toBe(200);
    expect((listed.body as Json).data.map((u: Json) => u.login)).toContain(login);
    expect(conformance.problems('GET', '/v1/users', listed)).toEqual([]);
  });

  it('the other user endpoints, a replayed creation and a conflict answer as documented', async () => {
    const login = `oas.${randomUUID().slice(0, 8)}`;
    const body = { login, email: `${login}@example.com`, name: 'Bob Conformance' };
    const key = randomUUID();
    const create = () =>
      call('POST', '/v1/users', { token: token('users:write'), body, headers: { 'Idempotency-Key': key } });
    const first = await create();
    const replay = await create();
    expect([first.status, replay.status, replay.headers.get('idempotent-replayed')]).toEqual([
      201,
      201,
      'true',
    ]);
    expect(conformance.problems('POST', '/v1/users', replay)).toEqual([]);

    const taken = await call('POST', '/v1/users', { token: token('users:write'), body });
    expect(taken.status).toBe(409);
    expect(conformance.problems('POST', '/v1/users', taken)).toEqual([]);

    const read = await call('GET', `/v1/users/${login}`, { token: token('users:read') });
    expect(read.status).toBe(200);
    expect(conformance.problems('GET', '/v1/users/{login}', read)).toEqual([]);
    const patched = await call('PATCH', `/v1/users/${login}`, {
      token: token('users:write'),
      body: { department: 'Ops', roles: ['approver'] },
    });
    expect(patched.status).toBe(200);
    expect(conformance.problems('PATCH', '/v1/users/{login}', patched)).toEqual([]);
    const deactivated = await call('POST', `/v1/users/${login}/deactivate`, { token: token('users:write') });
    expect(deactivated.status).toBe(200);
    expect((deactivated.body as Json).status).toBe('deactivated');
    expect(conformance.problems('POST', '/v1/users/{login}/deactivate', deactivated)).toEqual([]);

    const customer = await call('GET', `/v1/customers/${custId}`, { token: token('orders:read') });
    expect(customer.status).toBe(200);
    expect(conformance.problems('GET', '/v1/customers/{cust_id}', customer)).toEqual([]);
  });

  it('error answers of the service and of the gateway have the documented Error body and headers', async () => {
    const missing = await call('POST', '/v1/users', { token: token('users:write'), body: { login: 'x.y' } });
    expect(missing.status).toBe(422);
    expect(conformance.problems('POST', '/v1/users', missing)).toEqual([]);

    const unknown = await call('GET', '/v1/customers/NOPE-NOT-THERE', { token: token('orders:read') });
    expect(unknown.status).toBe(404);
    expect(conformance.problems('GET', '/v1/customers/{cust_id}', unknown)).toEqual([]);

    const noToken = await call('GET', '/v1/users');
    expect(noToken.status).toBe(401);
    expect(conformance.problems('GET', '/v1/users', noToken)).toEqual([]);

    const noScope = await call('GET', '/v1/users', { token: token('orders:read') });
    expect(noScope.status).toBe(403);
    expect(conformance.problems('GET', '/v1/users', noScope)).toEqual([]);

    const badLimit = await call('GET', '/v1/users?limit=0', { token: token('users:read') });
    expect(badLimit.status).toBe(422);
    expect(conformance.problems('GET', '/v1/users', badLimit)).toEqual([]);
  });

  it('POST /v1/users: the documented Idempotency-Key schema admits exactly the keys the platform takes', async () => {
    const header = conformance.deref(
      document.paths['/v1/users'].post.parameters.find((p: Json) => p.name === 'Idempotency-Key'),
    ).schema as Json;
    const admits = new Ajv2020({ strict: false }).compile(header);
    const keys = ['a b', 'k'.repeat(256), `k${randomUUID()}`.padEnd(255, 'k'), randomUUID(), 'tab\there', ''];
    for (const key of keys) {
      const login = `oas.${randomUUID().slice(0, 8)}`;
      const res = await call('POST', '/v1/users', {
        token: token('users:write'),
        body: { login, email: `${login}@example.com`, name: 'Key Conformance' },
        headers: { 'Idempotency-Key': key },
      });
      const taken = res.status === 201;
      expect(`${JSON.stringify(key.slice(0, 12))} (${key.length}): documented ${admits(key)}`).toBe(
        `${JSON.stringify(key.slice(0, 12))} (${key.length}): documented ${taken}`,
      );
      if (!taken) {
        expect(res.status).toBe(422);
        expect(conformance.problems('POST', '/v1/users', res)).toEqual([]);
      }
    }
  });

  it('the check catches an answer that does not conform', async () => {
    const res = await call('GET', '/v1/customers', { token: token('orders:read') });
    const body = structuredClone(res.body as Json);
    body.data[0].approval_required_over.amount = '500.00';
    delete body.has_more;
    const problems = conformance.problems('GET', '/v1/customers', { ...res, body });
    expect(problems).toEqual(
      expect.arrayContaining([
        "body must have required property 'has_more'",
        'body/data/0/approval_required_over/amount must be integer',
      ]),
    );
    expect(conformance.problems('GET', '/v1/customers', { ...res, status: 201 })).toEqual([
      'status 201 is not documented for GET /v1/customers',
    ]);
    const headers = new Headers(res.headers);
    headers.delete('x-request-id');
    expect(conformance.problems('GET', '/v1/customers', { ...res, headers })).toEqual([
      'missing header X-Request-Id',
    ]);
  });
});

describe('SCIM through the gateway (left out of the OpenAPI document)', () => {
  it('reaches the real customers service, which provisions into the token account with gateway URLs', async () => {
    const provisioner = token('users:write');
    const config = await fetch(`${gateway.url}/scim/v2/ServiceProviderConfig`, {
      headers: { Authorization: `Bearer ${provisioner}` },
    });
    expect(config.status).toBe(200);
    expect(config.headers.get('content-type')).toMatch(/^application\/scim\+json/);
    const host = new URL(gateway.url).host;
    expect(((await config.json()) as Json).meta.location).toBe(
      `http://${host}/scim/v2/ServiceProviderConfig`,
    );

    const userName = `scim.${randomUUID().slice(0, 8)}`;
    const created = await fetch(`${gateway.url}/scim/v2/Users`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${provisioner}`, 'Content-Type': 'application/scim+json' },
      body: JSON.stringify({
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
        userName,
        name: { givenName: 'Sam', familyName: 'Scim' },
        emails: [{ value: `${userName}@example.com`, primary: true }],
        active: true,
      }),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toMatch(new RegExp(`^http://${host}/scim/v2/Users/`));

    const viaApi = await call('GET', `/v1/users/${userName}`, { token: token('users:read') });
    expect(viaApi.status).toBe(200);
    expect(viaApi.body).toMatchObject({ login: userName, cust_id: custId });
    expect(conformance.problems('GET', '/v1/users/{login}', viaApi)).toEqual([]);

    const denied = await fetch(`${gateway.url}/scim/v2/Users`, {
      headers: { Authorization: `Bearer ${token('users:read')}` },
    });
    expect(denied.status).toBe(403);
  });
});
