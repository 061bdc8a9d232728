// Tokens from the real auth service through the real gateway to the customers service, each as its
// own process: the token verifies against the published JWKS with an independent client (jose),
// the gateway accepts it, and revocation (by the client, or by deactivating the user the
// integration acts for) reaches the gateway.
import { randomBytes } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { authCli, migrations as authMigrations } from '@ordering/auth-service';
import { CustomersAdminClient, migrations as customersMigrations } from '@ordering/customers-service';
import { createTestDatabase, waitUntil, type TestDatabase } from '@ordering/testing';
import { freePort, startServiceProcess, type ServiceProcess } from './support/service-process';

jest.setTimeout(90_000);

const brokers = process.env.KAFKA_BROKERS ?? '127.0.0.1:29092';
const secret = randomBytes(32).toString('hex');
const suffix = randomBytes(3).toString('hex').toUpperCase();
const custId = `AUTH-${suffix}`;
const integration = `integration-${suffix.toLowerCase()}`;
const audience = 'http://api.e2e.test';
const redisPrefix = `e2e-auth-${suffix}:`;

let customersDb: TestDatabase;
let authDb: TestDatabase;
let customers: ServiceProcess;
let auth: ServiceProcess;
let gateway: ServiceProcess;
let client: { client_id: string; client_secret: string };

async function registerClient(scopes: string): Promise<{ client_id: string; client_secret: string }> {
  let printed = '';
  await authCli({
    env: { ...process.env, DATABASE_URL: authDb.url },
    out: (text) => (printed += text),
  }).parseAsync(
    [
      'clients',
      'register',
      '--name',
      'E2E integration',
      '--type',
      'service',
      '--scopes',
      scopes,
      '--cust-id',
      custId,
      '--login',
      integration,
    ],
    { from: 'user' },
  );
  return JSON.parse(printed) as { client_id: string; client_secret: string };
}

async function clientCredentialsToken(scope: string): Promise<string> {
  const res = await fetch(`${auth.url}/oauth/token`, {
    method: 'POST',
    headers: {
      Authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
      'Content-Type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope }),
  });
  const body = (await res.json()) as { access_token: string };
  expect(res.status).toBe(200);
  return body.access_token;
}

const listUsers = (token: string) =>
  fetch(`${gateway.url}/v1/users`, { headers: { Authorization: `Bearer ${token}` } });

beforeAll(async () => {
  [customersDb, authDb] = await Promise.all([
    createTestDatabase({ service: 'customers', migrations: customersMigrations }),
    createTestDatabase({ service: 'auth', migrations: authMigrations }),
  ]);
  customers = await startServiceProcess('services/customers', {
    DATABASE_URL: customersDb.url,
    KAFKA_BROKERS: brokers,
    INTERNAL_IDENTITY_SECRET: secret,
    PASSWORD_HASH_COST: '10',
  });
  const admin = new CustomersAdminClient({ baseUrl: customers.url, internalIdentitySecret: secret });
  await admin.createCustomer({ cust_id: custId, name: `Auth ${suffix}`, currency: 'USD' });
  await admin.createUser({
    cust_id: custId,
    login: integration,
    email: `${integration}@e2e.example`,
    name: 'Integration',
  });

  const authPort = await freePort();
  const issuer = `http://127.0.0.1:${authPort}`;
  auth = await startServiceProcess(
    'services/auth',
    {
      DATABASE_URL: authDb.url,
      KAFKA_BROKERS: brokers,
      KAFKA_CONSUMER_GROUP: `auth-e2e-${suffix}`,
      KAFKA_FROM_BEGINNING: 'false',
      INTERNAL_IDENTITY_SECRET: secret,
      CUSTOMERS_URL: customers.url,
      AUTH_ISSUER: issuer,
      API_AUDIENCE: audience,
      REDIS_KEY_PREFIX: redisPrefix,
    },
    { port: authPort },
  );
  gateway = await startServiceProcess('gateway', {
    AUTH_JWKS_URL: `${issuer}/oauth/jwks.json`,
    AUTH_ISSUER: issuer,
    API_AUDIENCE: audience,
    INTERNAL_IDENTITY_SECRET: secret,
    CUSTOMERS_URL: customers.url,
    REDIS_KEY_PREFIX: redisPrefix,
  });
  client = await registerClient('users:read users:write');
});

afterAll(async () => {
  await Promise.allSettled([gateway?.stop(), auth?.stop(), customers?.stop()]);
  await Promise.allSettled([customersDb?.drop(), authDb?.drop()]);
});

describe('auth service tokens at the gateway', () => {
  it('a client-credentials token verifies against the published JWKS and opens the API for its account', async () => {
    const token = await clientCredentialsToken('users:read');
    const { payload, protectedHeader } = await jwtVerify(
      token,
      createRemoteJWKSet(new URL(`${auth.url}/oauth/jwks.json`)),
      {
        issuer: auth.url,
        audience,
        typ: 'at+jwt',
        algorithms: ['RS256'],
      },
    );
    expect(protectedHeader.alg).toBe('RS256');
    expect(payload).toMatchObject({
      sub: `shopper:${custId.toLowerCase()}:${integration}`,
      cust_id: custId,
      login: integration,
      client_id: client.client_id,
      scope: 'users:read',
    });
    expect(payload.exp! - payload.iat!).toBe(3600);

    const res = await listUsers(token);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: { login: string; cust_id: string }[] };
    expect(body.data.map((u) => u.login)).toContain(integration);
    expect(body.data.every((u) => u.cust_id === custId)).toBe(true);
  });

  it('a token the client revokes is refused by the gateway', async () => {
    const token = await clientCredentialsToken('users:read');
    expect((await listUsers(token)).status).toBe(200);
    const revoke = await fetch(`${auth.url}/oauth/revoke`, {
      method: 'POST',
      headers: {
        Authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ token, token_type_hint: 'access_token' }),
    });
    expect(revoke.status).toBe(200);
    await waitUntil(
      async () => (await listUsers(token)).status === 401,
      20_000,
      'the gateway to refuse the token',
    );
    const refused = await listUsers(token);
    expect(refused.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(await refused.json()).toMatchObject({
      error: { type: 'authentication_error', code: 'invalid_token' },
    });
  });

  it('deactivating the user a token acts for closes the API to that token (customers -> Kafka -> auth -> gateway)', async () => {
    const token = await clientCredentialsToken('users:read users:write');
    expect((await listUsers(token)).status).toBe(200);
    const deactivate = await fetch(`${gateway.url}/v1/users/${integration}/deactivate`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${token}` },
    });
    expect(deactivate.status).toBe(200);
    await waitUntil(
      async () => (await listUsers(token)).status === 401,
      20_000,
      'the gateway to refuse the token',
    );
  });
});
