// Spec rule 2: production and test side by side, each with its own OAuth host (auth service: own
// issuer, audience, signing keys in its own database), its own gateway (own Redis key prefix), its
// own customers database and its own internal identity secret, all in this process. A token of one
// environment opens its own API and is refused by the other's gateway with 401 invalid_token, both
// ways; each gateway's OpenAPI document lists both environments' servers.
import { randomBytes } from 'node:crypto';
import {
  authCli,
  loadAuthConfig,
  migrations as authMigrations,
  startAuthService,
  type AuthService,
} from '@ordering/auth-service';
import {
  CustomersAdminClient,
  type CustomersService,
  loadCustomersConfig,
  migrations as customersMigrations,
  startCustomersService,
} from '@ordering/customers-service';
import { loadGatewayConfig, startGateway } from '@ordering/gateway';
import { signIdentity } from '@ordering/http';
import { createTestDatabase, type TestDatabase, freePort } from '@ordering/testing';

jest.setTimeout(90_000);

const brokers = process.env.KAFKA_BROKERS ?? '127.0.0.1:29092';
const redisUrl = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const suffix = randomBytes(3).toString('hex').toUpperCase();
const API_BASES = {
  production: 'https://api.ordering.example/v1',
  test: 'https://api.test.ordering.example/v1',
};

interface Environment {
  name: 'production' | 'test';
  databases: TestDatabase[];
  customers: CustomersService & { stop(): Promise<void> };
  auth: AuthService;
  gateway: { url: string; stop(): Promise<void> };
  issuer: string;
  audience: string;
  token: string;
  client: { client_id: string; client_secret: string };
  /** The environment's internal identity secret (X-Ordering-Identity). */
  secret: string;
}

/** Each environment's OAuth host port, chosen before either starts: each gateway names both hosts. */
const authPorts: Record<'production' | 'test', number> = { production: 0, test: 0 };
const oauthHost = (name: 'production' | 'test') => `http://127.0.0.1:${authPorts[name]}`;

async function startEnvironment(name: 'production' | 'test'): Promise<Environment> {
  const secret = randomBytes(32).toString('hex');
  const keys = {
    KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    CLIENT_SECRET_KEY: randomBytes(32).toString('hex'),
  };
  const custId = `ENV-${name.toUpperCase()}-${suffix}`;
  const login = `integration-${name}`;
  const databases = await Promise.all([
    createTestDatabase({ service: 'customers', migrations: customersMigrations }),
    createTestDatabase({ service: 'auth', migrations: authMigrations }),
  ]);
  const [customersDb, authDb] = databases as [TestDatabase, TestDatabase];
  const customers = await startCustomersService(
    loadCustomersConfig({
      DATABASE_URL: customersDb.url,
      KAFKA_BROKERS: brokers,
      INTERNAL_IDENTITY_SECRET: secret,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      PASSWORD_HASH_COST: '10',
    }),
  );
  const admin = new CustomersAdminClient({ baseUrl: customers.url(), internalIdentitySecret: secret });
  await admin.createCustomer({ cust_id: custId, name: `Two environments (${name})`, currency: 'USD' });
  await admin.createUser({ cust_id: custId, login, email: `${login}@e2e.example`, name: 'Integration' });

  // Each environment's OAuth host: its own issuer and audience, its own key-encryption key.
  const authPort = authPorts[name];
  const issuer = oauthHost(name);
  const audience = name === 'production' ? 'https://api.ordering.e2e' : 'https://api.test.ordering.e2e';
  const redisPrefix = `e2e-env-${name}-${suffix}:`;
  const auth = await startAuthService(
    loadAuthConfig({
      DATABASE_URL: authDb.url,
      KAFKA_BROKERS: brokers,
      KAFKA_CONSUMER_GROUP: `auth-env-${name}-${suffix}`,
      INTERNAL_IDENTITY_SECRET: secret,
      CUSTOMERS_URL: customers.url(),
      AUTH_ISSUER: issuer,
      API_AUDIENCE: audience,
      REDIS_URL: redisUrl,
      REDIS_KEY_PREFIX: redisPrefix,
      ...keys,
      PORT: String(authPort),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
    }),
  );
  const gateway = await startGateway(
    loadGatewayConfig({
      LOG_LEVEL: 'silent',
      PORT: '0',
      HOST: '127.0.0.1',
      AUTH_JWKS_URL: `${issuer}/oauth/jwks.json`,
      AUTH_ISSUER: issuer,
      API_AUDIENCE: audience,
      INTERNAL_IDENTITY_SECRET: secret,
      REDIS_URL: redisUrl,
      REDIS_KEY_PREFIX: redisPrefix,
      CUSTOMERS_URL: customers.url(),
      PUBLIC_BASE_URL: API_BASES[name],
      API_BASE_URL: API_BASES.production,
      TEST_API_BASE_URL: API_BASES.test,
      OAUTH_HOST_URL: oauthHost('production'),
      TEST_OAUTH_HOST_URL: oauthHost('test'),
    }),
  );

  let printed = '';
  await authCli({
    env: { ...process.env, DATABASE_URL: authDb.url, ...keys },
    out: (t) => (printed += t),
  }).parseAsync(
    [
      'clients',
      'register',
      '--name',
      `Integration ${name}`,
      '--scopes',
      'users:read',
      '--cust-id',
      custId,
      '--type',
      'service',
      '--login',
      login,
    ],
    { from: 'user' },
  );
  const client = JSON.parse(printed) as { client_id: string; client_secret: string };
  const token = await clientCredentialsToken(`${issuer}/oauth/token`, client);
  return { name, databases, customers, auth, gateway, issuer, audience, token, client, secret };
}

async function clientCredentialsToken(
  tokenUrl: string,
  client: { client_id: string; client_secret: string },
): Promise<string> {
  const res = await fetch(tokenUrl, {
    method: 'POST',
    headers: {
      Authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
      'Content-Type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'users:read' }),
  });
  const body = (await res.json()) as { access_token?: string };
  if (res.status !== 200 || !body.access_token)
    throw new Error(`${tokenUrl}: no token: ${res.status} ${JSON.stringify(body)}`);
  return body.access_token;
}

let production: Environment;
let test: Environment;

beforeAll(async () => {
  [authPorts.production, authPorts.test] = [await freePort(), await freePort()];
  [production, test] = await Promise.all([startEnvironment('production'), startEnvironment('test')]);
});

afterAll(async () => {
  for (const env of [production, test]) {
    if (!env) continue;
    await env.gateway.stop();
    await env.auth.stop();
    await env.customers.stop();
    await Promise.allSettled(env.databases.map((d) => d.drop()));
  }
});

const listUsers = (env: Environment, token: string) =>
  fetch(`${env.gateway.url}/v1/users?limit=1`, { headers: { Authorization: `Bearer ${token}` } });

it('each environment has its own issuer, audience and signing keys', async () => {
  expect(production.issuer).not.toBe(test.issuer);
  expect(production.audience).not.toBe(test.audience);
  const kids = async (env: Environment) =>
    ((await (await fetch(`${env.issuer}/oauth/jwks.json`)).json()) as { keys: { kid: string }[] }).keys.map(
      (k) => k.kid,
    );
  const [productionKids, testKids] = await Promise.all([kids(production), kids(test)]);
  expect(productionKids.length).toBeGreaterThan(0);
  expect(productionKids.filter((kid) => testKids.includes(kid))).toEqual([]);
});

it.each([
  ['production', () => production],
  ['test', () => test],
])("a %s token opens that environment's API", async (_name, env) => {
  const res = await listUsers(env(), env().token);
  expect(res.status).toBe(200);
  expect(await res.json()).toMatchObject({ object: 'list' });
});

it.each([
  ['production', 'test', () => [production, test] as const],
  ['test', 'production', () => [test, production] as const],
])('a %s token is refused by the %s gateway with 401 invalid_token', async (_from, _to, envs) => {
  const [issuedBy, other] = envs();
  const res = await listUsers(other, issuedBy.token);
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
  expect(await res.json()).toMatchObject({ error: { type: 'authentication_error', code: 'invalid_token' } });
});

it('both gateways describe both environments in /v1/openapi.json, their own first', async () => {
  for (const env of [production, test]) {
    const doc = (await (await fetch(`${env.gateway.url}/v1/openapi.json`)).json()) as {
      servers: { url: string }[];
    };
    const own = API_BASES[env.name].replace(/\/v1$/, '');
    expect(doc.servers[0]!.url).toBe(own);
    expect(doc.servers.map((s) => s.url).sort()).toEqual([
      'https://api.ordering.example',
      'https://api.test.ordering.example',
    ]);
  }
});

it("each environment's server in /v1/openapi.json names its own OAuth host, whose token that environment's API accepts", async () => {
  const environments = { production: () => production, test: () => test };
  for (const served of [production, test]) {
    const doc = (await (await fetch(`${served.gateway.url}/v1/openapi.json`)).json()) as {
      servers: { url: string; description: string }[];
      components: { securitySchemes: { oauth2: { flows: { clientCredentials: { tokenUrl: string } } } } };
    };
    // The flows name the OAuth host of the environment that served the document ...
    expect(doc.components.securitySchemes.oauth2.flows.clientCredentials.tokenUrl).toBe(
      `${served.issuer}/oauth/token`,
    );
    // ... and each server its own: a token from there opens that server's API, not the other's.
    for (const [name, env] of Object.entries(environments)) {
      const server = doc.servers.find(
        (s) => s.url === API_BASES[name as 'production' | 'test'].replace(/\/v1$/, ''),
      );
      const tokenUrl = /(https?:\/\/\S+\/oauth\/token)/.exec(server?.description ?? '')?.[1];
      expect(`${served.name} document, ${name}: ${tokenUrl}`).toBe(
        `${served.name} document, ${name}: ${env().issuer}/oauth/token`,
      );
      const token = await clientCredentialsToken(tokenUrl!, env().client);
      expect((await listUsers(env(), token)).status).toBe(200);
      expect((await listUsers(env() === production ? test : production, token)).status).toBe(401);
    }
  }
});

describe('a token reaches the other environment by no other way than the gateway, and fails there too', () => {
  const pairs = [
    ['production', 'test', () => [production, test] as const],
    ['test', 'production', () => [test, production] as const],
  ] as const;
  const basic = (env: Environment) =>
    `Basic ${Buffer.from(`${env.client.client_id}:${env.client.client_secret}`).toString('base64')}`;
  const form = (env: Environment, path: string, token: string) =>
    fetch(`${env.issuer}${path}`, {
      method: 'POST',
      headers: { Authorization: basic(env), 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token }),
    });

  it.each(pairs)(
    "introspection at the %s token's own OAuth host says active, at the %s one inactive",
    async (_f, _t, envs) => {
      const [issuedBy, other] = envs();
      const own = await form(issuedBy, '/oauth/introspect', issuedBy.token);
      expect(await own.json()).toMatchObject({ active: true, iss: issuedBy.issuer, aud: issuedBy.audience });
      const foreign = await form(other, '/oauth/introspect', issuedBy.token);
      expect([foreign.status, await foreign.json()]).toEqual([200, { active: false }]);
    },
  );

  it.each(pairs)(
    'revoking a %s token at the %s OAuth host leaves it working where it was issued',
    async (_f, _t, envs) => {
      const [issuedBy, other] = envs();
      const token = await clientCredentialsToken(`${issuedBy.issuer}/oauth/token`, issuedBy.client);
      expect((await form(other, '/oauth/revoke', token)).status).toBe(200);
      expect((await listUsers(issuedBy, token)).status).toBe(200);
    },
  );

  it.each(pairs)(
    'an identity header signed by the %s gateway is refused by the %s services',
    async (_f, _t, envs) => {
      const [signedBy, other] = envs();
      const identity = {
        sub: 'shopper:x:integration',
        cust_id: `ENV-${other.name.toUpperCase()}-${suffix}`,
        login: `integration-${other.name}`,
        client_id: other.client.client_id,
        scopes: ['users:read'],
        jti: 'forged',
        exp: Math.floor(Date.now() / 1000) + 300,
      };
      const call = (secret: string) =>
        fetch(`${other.customers.url()}/v1/users?limit=1`, {
          headers: { 'X-Ordering-Identity': signIdentity(identity, secret) },
        });
      expect((await call(other.secret)).status).toBe(200);
      const refused = await call(signedBy.secret);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toMatchObject({ error: { code: 'invalid_token' } });
    },
  );
});
