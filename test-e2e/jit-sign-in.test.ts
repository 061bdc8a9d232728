// Just-in-time provisioning at sign-in, with each service as its own process: a person of a
// company whose e-mail domain is mapped to an account (JIT allowed) signs in through the company's
// identity provider (a real OpenID Connect provider, in the test) on the real auth service, which
// asks the real customers service to provision the shopper. user.created fires once on
// ordering.users.v1 for two sign-ins of the same new person; once deactivated, the person can no
// longer sign in that way.
import { randomBytes } from 'node:crypto';
import * as client from 'openid-client';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { TOPICS } from '@ordering/contracts';
import { authCli, migrations as authMigrations } from '@ordering/auth-service';
import { CustomersAdminClient, migrations as customersMigrations } from '@ordering/customers-service';
import {
  createTestDatabase,
  readEvents,
  type EventReader,
  type TestDatabase,
  freePort,
} from '@ordering/testing';
import { authorizationRequest } from '../services/auth/test/support/authorization-request';
import { ScopedBrowser } from '../services/auth/test/support/scoped-browser';
import {
  startUpstreamIdentityProvider,
  type UpstreamIdentityProvider,
} from '../services/auth/test/support/upstream-identity-provider';
import { startServiceProcess, type ServiceProcess } from './support/service-process';

jest.setTimeout(90_000);

const brokers = process.env.KAFKA_BROKERS ?? '127.0.0.1:29092';
const secret = randomBytes(32).toString('hex');
const suffix = randomBytes(3).toString('hex').toUpperCase();
const custId = `JIT-${suffix}`;
const domain = `jit-${suffix.toLowerCase()}.example`;
const person = `pat.doe@${domain}`;
const audience = 'http://api.e2e.test';
const redirectUri = 'http://127.0.0.1:8976/callback';
const authEnv = {
  CLIENT_SECRET_KEY: randomBytes(32).toString('hex'),
  KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
};

interface UserEvent {
  id: string;
  type: string;
  cust_id: string;
  data: { login: string; cust_id: string; name: string; email: string };
}

let customersDb: TestDatabase;
let authDb: TestDatabase;
let customers: ServiceProcess;
let auth: ServiceProcess;
let idp: UpstreamIdentityProvider;
let admin: CustomersAdminClient;
let app: client.Configuration;
let userEvents: EventReader<UserEvent>;

async function ops(args: string[]): Promise<Record<string, string>> {
  let printed = '';
  await authCli({
    env: { ...process.env, DATABASE_URL: authDb.url, ...authEnv },
    out: (text) => (printed += text),
  }).parseAsync(args, { from: 'user' });
  return JSON.parse(printed) as Record<string, string>;
}

/** One sign-in through the company provider; the page where it ended. */
async function signInWithCompany(): Promise<{
  url: string;
  html: string;
  status: number;
  verifier: string;
  state: string;
}> {
  const { url, verifier, state } = await authorizationRequest(app, {
    redirectUri,
    scope: 'openid email orders:read',
  });
  const browser = new ScopedBrowser([redirectUri]);
  const signInPage = await browser.open(url.href);
  const step = await browser.submit(signInPage, '/federate', { email: person });
  const end = step.status === 200 ? await browser.followRefresh(step) : step;
  return { ...end, verifier, state };
}

async function accessTokenClaims(end: { url: string; verifier: string; state: string }) {
  expect(end.url.startsWith(redirectUri)).toBe(true);
  const tokens = await client.authorizationCodeGrant(app, new URL(end.url), {
    pkceCodeVerifier: end.verifier,
    expectedState: end.state,
  });
  const { payload } = await jwtVerify(
    tokens.access_token,
    createRemoteJWKSet(new URL(`${auth.url}/oauth/jwks.json`)),
    { issuer: auth.url, audience, typ: 'at+jwt', algorithms: ['RS256'] },
  );
  return payload;
}

beforeAll(async () => {
  [customersDb, authDb] = await Promise.all([
    createTestDatabase({ service: 'customers', migrations: customersMigrations }),
    createTestDatabase({ service: 'auth', migrations: authMigrations }),
  ]);
  const authPort = await freePort();
  const issuer = `http://127.0.0.1:${authPort}`;
  idp = await startUpstreamIdentityProvider({ redirectUri: `${issuer}/oauth/federation/callback` });
  idp.person(person, { sub: 'idp-pat', email: person, email_verified: true, name: 'Pat Doe' });

  [customers] = await Promise.all([
    startServiceProcess('services/customers', {
      DATABASE_URL: customersDb.url,
      KAFKA_BROKERS: brokers,
      INTERNAL_IDENTITY_SECRET: secret,
      PASSWORD_HASH_COST: '10',
    }),
    ops([
      'idps',
      'add',
      '--domain',
      domain,
      '--issuer',
      idp.issuer,
      '--client-id',
      idp.clientId,
      '--client-secret',
      idp.clientSecret,
      '--name',
      'Company SSO',
    ]),
  ]);
  admin = new CustomersAdminClient({ baseUrl: customers.url, internalIdentitySecret: secret });
  await admin.createCustomer({
    cust_id: custId,
    name: `JIT ${suffix}`,
    currency: 'USD',
    email_domains: [domain],
    jit_provisioning: true,
  });
  auth = await startServiceProcess(
    'services/auth',
    {
      DATABASE_URL: authDb.url,
      KAFKA_BROKERS: brokers,
      KAFKA_CONSUMER_GROUP: `auth-e2e-jit-${suffix}`,
      KAFKA_FROM_BEGINNING: 'true',
      INTERNAL_IDENTITY_SECRET: secret,
      CUSTOMERS_URL: customers.url,
      AUTH_ISSUER: issuer,
      API_AUDIENCE: audience,
      REDIS_KEY_PREFIX: `e2e-jit-${suffix}:`,
      ...authEnv,
    },
    { port: authPort },
  );
  const web = await ops([
    'clients',
    'register',
    '--name',
    'Ordering Web',
    '--type',
    'web',
    '--first-party',
    '--scopes',
    'openid email orders:read',
    '--cust-id',
    custId,
    '--login',
    'web',
    '--redirect-uri',
    redirectUri,
  ]);
  app = await client.discovery(
    new URL(auth.url),
    web.client_id!,
    web.client_secret,
    client.ClientSecretBasic(web.client_secret),
    { execute: [client.allowInsecureRequests] },
  );
  userEvents = await readEvents<UserEvent>(TOPICS.users, (e) => e.cust_id === custId);
});

afterAll(async () => {
  await userEvents?.stop();
  await Promise.allSettled([auth?.stop(), customers?.stop(), idp?.close()]);
  await Promise.allSettled([customersDb?.drop(), authDb?.drop()]);
});

describe('just-in-time provisioning at federated sign-in', () => {
  it('two sign-ins of the same new person create one shopper: user.created fires once, both tokens act for it', async () => {
    const first = await accessTokenClaims(await signInWithCompany());
    expect(first).toMatchObject({
      cust_id: custId,
      login: person,
      sub: `shopper:${custId.toLowerCase()}:${person}`,
    });
    const second = await accessTokenClaims(await signInWithCompany());
    expect(second).toMatchObject({ cust_id: custId, login: person });

    // Deactivating the person fires user.deactivated on the same key (partition) after whatever
    // the sign-ins fired: once it is read, every user.created of the sign-ins has been read too.
    await admin.deactivateUser(person);
    const events = await userEvents.waitFor((all) =>
      all.some((e) => e.type === 'user.deactivated' && e.data.login === person),
    );
    const created = events.filter((e) => e.type === 'user.created' && e.data.login === person);
    expect(created).toHaveLength(1);
    expect(created[0]!.data).toMatchObject({
      login: person,
      email: person,
      name: 'Pat Doe',
      cust_id: custId,
    });

    // A deactivated shopper cannot sign in through the company provider either.
    const refused = await signInWithCompany();
    expect(refused.status).toBe(403);
    expect(refused.url.startsWith(redirectUri)).toBe(false);
    expect(refused.html).toMatch(/deactivated/);
  });
});
