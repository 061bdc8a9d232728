// Tokens from the real auth service through the real gateway to the customers service, each as its
// own process: the token verifies against the published JWKS with an independent client (jose),
// the gateway accepts it, and revocation (by the client, or by deactivating the user the
// integration acts for) reaches the gateway. A shopper signs in through the real sign-in page
// (authorization code with PKCE, driven by openid-client 6) against the real customers service.
import { randomBytes } from 'node:crypto';
import { createRemoteJWKSet, decodeJwt, decodeProtectedHeader, jwtVerify } from 'jose';
import * as oidc from 'openid-client';
import { authCli, migrations as authMigrations } from '@ordering/auth-service';
import { CustomersAdminClient, migrations as customersMigrations } from '@ordering/customers-service';
import { createTestDatabase, testKafkaClient, waitUntil, type TestDatabase } from '@ordering/testing';
import { Browser, type Page } from '../services/auth/test/support/browser';
import { startAuthProcess, startCustomersProcess, startGatewayProcess } from './support/platform-processes';
import type { ServiceProcess } from './support/service-process';
import { authorizationRequest } from '../services/auth/test/support/authorization-request';

jest.setTimeout(90_000);

const brokers = process.env.KAFKA_BROKERS ?? '127.0.0.1:29092';
const secret = randomBytes(32).toString('hex');
const suffix = randomBytes(3).toString('hex').toUpperCase();
const custId = `AUTH-${suffix}`;
const integration = `integration-${suffix.toLowerCase()}`;
const audience = 'http://api.e2e.test';
const redisPrefix = `e2e-auth-${suffix}:`;
const redirectUri = 'http://127.0.0.1:8976/callback';
const shopperPassword = `shopper-password-${suffix}`;
/** The exact claim set of the spec's access-token table. */
const SPEC_CLAIMS = ['iss', 'sub', 'aud', 'exp', 'iat', 'jti', 'scope', 'client_id', 'cust_id', 'login'];

let customersDb: TestDatabase;
let authDb: TestDatabase;
let customers: ServiceProcess;
let auth: ServiceProcess & { issuer: string };
let gateway: ServiceProcess;
let client: { client_id: string; client_secret: string };
let admin: CustomersAdminClient;

async function registerClient(
  scopes: string,
  options: string[] = ['--type', 'service', '--login', integration],
): Promise<{ client_id: string; client_secret: string }> {
  let printed = '';
  await authCli({
    env: { ...process.env, DATABASE_URL: authDb.url },
    out: (text) => (printed += text),
  }).parseAsync(
    ['clients', 'register', '--name', 'E2E integration', '--scopes', scopes, '--cust-id', custId, ...options],
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
  customers = await startCustomersProcess({ databaseUrl: customersDb.url, brokers: brokers, secret });
  admin = new CustomersAdminClient({ baseUrl: customers.url, internalIdentitySecret: secret });
  await admin.createCustomer({ cust_id: custId, name: `Auth ${suffix}`, currency: 'USD' });
  await admin.createUser({
    cust_id: custId,
    login: integration,
    email: `${integration}@e2e.example`,
    name: 'Integration',
  });

  auth = await startAuthProcess({
    databaseUrl: authDb.url,
    brokers,
    secret,
    customersUrl: customers.url,
    audience,
    redisPrefix,
    consumerGroup: `auth-e2e-${suffix}`,
    // Signing keys rotated by the operator CLI are picked up within half a second (30 s by default).
    env: { KAFKA_FROM_BEGINNING: 'true', KEY_RELOAD_INTERVAL_MS: '500' },
  });
  gateway = await startGatewayProcess({
    issuer: auth.issuer,
    audience,
    secret,
    customersUrl: customers.url,
    redisPrefix,
  });
  client = await registerClient('users:read users:write');
  // The auth service reads user events from the latest offset once it has joined its group; an
  // event published before that would be missed. Its readiness does not say, the broker does.
  const kafkaAdmin = testKafkaClient().admin();
  await kafkaAdmin.connect();
  try {
    await waitUntil(
      async () => {
        const [group] = (await kafkaAdmin.describeGroups([`auth-e2e-${suffix}`])).groups;
        return group?.state === 'Stable' && group.members.length > 0;
      },
      30_000,
      'the auth service to join its consumer group',
    );
  } finally {
    await kafkaAdmin.disconnect();
  }
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

describe('a shopper signed in with the authorization code flow (PKCE) on the real sign-in page', () => {
  let web: { client_id: string; client_secret: string };
  let webConfig: oidc.Configuration;
  /** A client-credentials client acting for the account's administrator (deactivates shoppers). */
  let adminClient: { client_id: string; client_secret: string };

  beforeAll(async () => {
    // A shopper's token may carry orders:read, not users:read (only admins' do).
    web = await registerClient('openid profile orders:read', [
      '--type',
      'web',
      '--first-party',
      '--login',
      integration,
      '--redirect-uri',
      redirectUri,
    ]);
    webConfig = await oidc.discovery(
      new URL(auth.url),
      web.client_id,
      { client_secret: web.client_secret },
      oidc.ClientSecretBasic(web.client_secret),
      { execute: [oidc.allowInsecureRequests] },
    );
    const adminLogin = `admin-${suffix.toLowerCase()}`;
    await admin.createUser({
      cust_id: custId,
      login: adminLogin,
      email: `${adminLogin}@e2e.example`,
      name: 'Account admin',
    });
    adminClient = await registerClient('users:read users:write', [
      '--type',
      'service',
      '--login',
      adminLogin,
    ]);
  });

  /** A new shopper of the account with a password set by the operator. */
  async function newShopper(name: string): Promise<string> {
    const login = `${name}-${randomBytes(3).toString('hex')}`;
    await admin.createUser({ cust_id: custId, login, email: `${login}@e2e.example`, name });
    await admin.setPassword(login, shopperPassword);
    return login;
  }

  /** Opens the authorization URL (PKCE S256) in a fresh browser and lands on the sign-in page. */
  async function openSignIn() {
    const { url, verifier, state } = await authorizationRequest(webConfig, {
      redirectUri: redirectUri,
      scope: 'openid orders:read',
    });
    const browser = new Browser(redirectUri);
    const page = await browser.open(url.href);
    expect(page.status).toBe(200);
    expect(page.html).toMatch(/<input type="password" id="password" name="password"/);
    return { browser, page, verifier, state };
  }

  async function signIn(login: string): Promise<oidc.TokenEndpointResponse> {
    const { browser, page, verifier, state } = await openSignIn();
    const callback: Page = await browser.submit(page, '/login', { login, password: shopperPassword });
    expect(callback.url.startsWith(redirectUri)).toBe(true);
    return oidc.authorizationCodeGrant(webConfig, new URL(callback.url), {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
  }

  /** Reads the shopper's own account (orders:read); `login` names whose token it is. */
  const readSelf = (token: string, _login: string) =>
    fetch(`${gateway.url}/v1/customers/${custId}`, { headers: { Authorization: `Bearer ${token}` } });

  it('issues a token with exactly the spec claims that opens the API at the gateway', async () => {
    const login = await newShopper('ann');
    const tokens = await signIn(login);
    expect(tokens.refresh_token).toEqual(expect.any(String));
    expect(tokens.id_token).toEqual(expect.any(String));
    expect(tokens.expires_in).toBe(3600);

    const { payload, protectedHeader } = await jwtVerify(
      tokens.access_token,
      createRemoteJWKSet(new URL(`${auth.url}/oauth/jwks.json`)),
      { issuer: auth.url, audience, typ: 'at+jwt', algorithms: ['RS256'] },
    );
    expect(protectedHeader.alg).toBe('RS256');
    expect(Object.keys(payload).sort()).toEqual([...SPEC_CLAIMS].sort());
    expect(payload).toMatchObject({
      sub: `shopper:${custId.toLowerCase()}:${login}`,
      cust_id: custId,
      login,
      client_id: web.client_id,
    });

    const res = await readSelf(tokens.access_token, login);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: custId, object: 'customer' });
  });

  it('rotates the refresh token; replaying the old one revokes the grant and the gateway refuses its access tokens', async () => {
    const login = await newShopper('ben');
    const first = await signIn(login);
    const second = await oidc.refreshTokenGrant(webConfig, first.refresh_token!);
    expect(second.refresh_token).toEqual(expect.any(String));
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(decodeJwt(second.access_token).jti).not.toBe(decodeJwt(first.access_token).jti);
    expect((await readSelf(first.access_token, login)).status).toBe(200);
    expect((await readSelf(second.access_token, login)).status).toBe(200);

    // Replay of the rotated refresh token: invalid_grant, and the whole grant is revoked.
    await expect(oidc.refreshTokenGrant(webConfig, first.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    // The denylist entries were written before the replay was answered: the very next request
    // through the gateway is refused, for every access token of the grant.
    for (const token of [second.access_token, first.access_token]) {
      const refused = await readSelf(token, login);
      expect(refused.status).toBe(401);
      expect(refused.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    }
    await expect(oidc.refreshTokenGrant(webConfig, second.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });
    // A fresh sign-in of the same shopper is a new grant, unaffected.
    expect((await readSelf((await signIn(login)).access_token, login)).status).toBe(200);
  });

  it('a shopper deactivated through POST /v1/users/{login}/deactivate cannot sign in again and their token is refused at the gateway', async () => {
    const login = await newShopper('cal');
    const tokens = await signIn(login);
    expect((await readSelf(tokens.access_token, login)).status).toBe(200);

    const adminToken = await oidc.clientCredentialsGrant(
      await oidc.discovery(
        new URL(auth.url),
        adminClient.client_id,
        { client_secret: adminClient.client_secret },
        oidc.ClientSecretBasic(adminClient.client_secret),
        { execute: [oidc.allowInsecureRequests] },
      ),
      { scope: 'users:write' },
    );
    const deactivate = await fetch(`${gateway.url}/v1/users/${login}/deactivate`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${adminToken.access_token}` },
    });
    expect(deactivate.status).toBe(200);
    expect(await deactivate.json()).toMatchObject({ login, status: 'deactivated' });

    // customers -> Kafka (user.deactivated) -> auth -> Redis -> gateway. The contract's bound is
    // 5 s (measured by bench/revocation-latency.ts); a loaded test machine may take longer.
    await waitUntil(
      async () => (await readSelf(tokens.access_token, login)).status === 401,
      20_000,
      'the gateway to refuse the deactivated shopper token',
    );
    await expect(oidc.refreshTokenGrant(webConfig, tokens.refresh_token!)).rejects.toMatchObject({
      error: 'invalid_grant',
    });

    // The right password no longer signs them in: the page answers with the same error as a wrong
    // password and never reaches the redirect URI.
    const { browser, page } = await openSignIn();
    const again = await browser.submit(page, '/login', { login, password: shopperPassword });
    expect(again.status).toBe(401);
    expect(again.url.startsWith(redirectUri)).toBe(false);
    expect(again.html).toMatch(/role="alert"/);
  });
});

describe('a leaked signing key, rotated out with no overlap (the runbook)', () => {
  it("the gateway refuses the old key's tokens at once, though it cached the JWKS, and accepts the new key's", async () => {
    client = await registerClient('users:read', [
      '--type',
      'service',
      '--login',
      `leak-${suffix.toLowerCase()}`,
    ]);
    const leaked = await clientCredentialsToken('users:read');
    expect((await listUsers(leaked)).status).toBe(200);

    let printed = '';
    await authCli({
      env: { ...process.env, DATABASE_URL: authDb.url, REDIS_KEY_PREFIX: redisPrefix },
      out: (text) => (printed += text),
    }).parseAsync(['keys', 'rotate', '--overlap-seconds', '0'], { from: 'user' });
    const rotated = JSON.parse(printed) as { kid: string; previous_key_tokens_refused_from: string };
    expect(rotated.kid).not.toBe(decodeProtectedHeader(leaked).kid);

    const refused = await listUsers(leaked);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: { code: 'invalid_token' } });

    // Once auth has loaded the new key, its tokens open the API again (the gateway fetches the
    // JWKS anew for a key id it does not know). Auth publishes and signs with a reloaded key set
    // at once: the JWKS is polled, not the token endpoint, whose limit refuses a client minting
    // tokens every few milliseconds.
    await waitUntil(
      async () => {
        const jwks = (await (await fetch(`${auth.url}/oauth/jwks.json`)).json()) as {
          keys: { kid: string }[];
        };
        return jwks.keys.some((key) => key.kid === rotated.kid);
      },
      20_000,
      'the auth service to publish the new key',
    );
    const fresh = await clientCredentialsToken('users:read');
    expect(decodeProtectedHeader(fresh).kid).toBe(rotated.kid);
    expect((await listUsers(fresh)).status).toBe(200);
  });
});

describe('the token endpoint limit (default limits)', () => {
  it('refuses a client minting past its burst with 429, which openid-client surfaces with the status; another client is served', async () => {
    const login = `limits-${suffix.toLowerCase()}`;
    const minting = await registerClient('users:read', ['--type', 'service', '--login', login]);
    const config = await oidc.discovery(
      new URL(auth.url),
      minting.client_id,
      { client_secret: minting.client_secret },
      oidc.ClientSecretBasic(minting.client_secret),
      { execute: [oidc.allowInsecureRequests] },
    );
    // Sixty at once: a fleet of sixty replicas starting together.
    for (let i = 0; i < 60; i++) await oidc.clientCredentialsGrant(config, { scope: 'users:read' });
    const refused = await oidc.clientCredentialsGrant(config, { scope: 'users:read' }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(oidc.ResponseBodyError);
    expect(refused).toMatchObject({ status: 429, error: 'too_many_requests' });
    const retryAfter = Number((refused as oidc.ResponseBodyError).response.headers.get('retry-after'));
    // One more token every 30 seconds.
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(30);

    client = await registerClient('users:read', ['--type', 'service', '--login', login]);
    expect((await listUsers(await clientCredentialsToken('users:read'))).status).toBe(200);
  });
});
