// Issue 7: the holes found by probing auth, the gateway and customers from outside, each closed and
// kept closed here, through the real processes (customers, auth and the gateway, each its own
// process as `./dev up` runs them), asserting the exact status and error shape. The hostile-input
// walk over every operation of `/v1/openapi.json` is in openapi-hostile-input.test.ts.
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import * as oidc from 'openid-client';
import { authCli, migrations as authMigrations } from '@ordering/auth-service';
import { CustomersAdminClient, migrations as customersMigrations } from '@ordering/customers-service';
import { createTestDatabase, type TestDatabase } from '@ordering/testing';
import { authorizationRequest } from '../services/auth/test/support/authorization-request';
import { Browser, type Page } from '../services/auth/test/support/browser';
import { startAuthProcess, startCustomersProcess, startGatewayProcess } from './support/platform-processes';
import type { ServiceProcess } from './support/service-process';

jest.setTimeout(120_000);

const brokers = process.env.KAFKA_BROKERS ?? '127.0.0.1:29092';
const secret = randomBytes(32).toString('hex');
const suffix = randomBytes(3).toString('hex').toUpperCase();
const acme = `ACME-${suffix}`;
const acmeWest = `${acme}-WEST`;
const globex = `GLOBEX-${suffix}`;
const audience = 'http://api.e2e.test';
const redisPrefix = `e2e-attack-${suffix}:`;
const redirectUri = 'http://127.0.0.1:8976/callback';
const password = `attack-password-${suffix}`;
const lower = suffix.toLowerCase();
const users = {
  integration: `integration-${lower}`,
  admin: `admin-${lower}`,
  shopper: `shopper-${lower}`,
  westShopper: `west-${lower}`,
  globexShopper: `globex-${lower}`,
  target: `target-${lower}`,
};
const ALL_API_SCOPES = 'orders:read orders:write catalog:read users:read users:write admin:all';

let customersDb: TestDatabase;
let authDb: TestDatabase;
let customers: ServiceProcess;
let auth: ServiceProcess & { issuer: string };
let gateway: ServiceProcess;
let admin: CustomersAdminClient;
let service: { client_id: string; client_secret: string };
let web: { client_id: string; client_secret: string };
let webConfig: oidc.Configuration;

async function cli(args: string[]): Promise<string> {
  let printed = '';
  await authCli({
    env: { ...process.env, DATABASE_URL: authDb.url, REDIS_KEY_PREFIX: redisPrefix },
    out: (text) => (printed += text),
  }).parseAsync(args, { from: 'user' });
  return printed;
}

async function registerClient(custId: string, scopes: string, options: string[]) {
  const printed = await cli([
    'clients',
    'register',
    '--name',
    `Attack ${suffix}`,
    '--scopes',
    scopes,
    '--cust-id',
    custId,
    ...options,
  ]);
  return JSON.parse(printed) as { client_id: string; client_secret: string };
}

function basic(client: { client_id: string; client_secret: string }): string {
  return `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`;
}

async function tokenRequest(
  client: { client_id: string; client_secret: string },
  form: Record<string, string>,
) {
  const res = await fetch(`${auth.url}/oauth/token`, {
    method: 'POST',
    headers: { Authorization: basic(client), 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function serviceToken(scope?: string): Promise<string> {
  const { status, body } = await tokenRequest(service, {
    grant_type: 'client_credentials',
    ...(scope ? { scope } : {}),
  });
  expect(status).toBe(200);
  return body.access_token as string;
}

const api = (path: string, token: string, init: RequestInit = {}) =>
  fetch(`${gateway.url}${path}`, {
    ...init,
    headers: { Authorization: `Bearer ${token}`, ...(init.headers as Record<string, string> | undefined) },
  });

/** The API error body, asserted to the letter, with its request id equal to the header. */
async function expectApiError(
  res: Response,
  status: number,
  type: string,
  code: string,
  param?: string,
): Promise<void> {
  const body = (await res.json()) as unknown;
  expect({ status: res.status, body }).toEqual({
    status,
    body: {
      error: {
        type,
        code,
        message: expect.any(String),
        ...(param === undefined ? {} : { param }),
        request_id: res.headers.get('x-request-id'),
      },
    },
  });
}

function expectRateLimitHeaders(res: Response): void {
  expect(res.headers.get('x-ratelimit-limit')).toBe('120');
  expect(res.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
  expect(res.headers.get('x-ratelimit-reset')).toMatch(/^\d+$/);
}

/** Opens the code flow of the web client in a fresh browser and lands on the sign-in page. */
async function openSignIn(scope = 'openid orders:read') {
  const { url, verifier, state } = await authorizationRequest(webConfig, { redirectUri, scope });
  const browser = new Browser(redirectUri);
  const page = await browser.open(url.href);
  expect(page.status).toBe(200);
  return { browser, page, verifier, state };
}

async function signIn(login: string, scope: string): Promise<oidc.TokenEndpointResponse> {
  const { browser, page, verifier, state } = await openSignIn(scope);
  const callback: Page = await browser.submit(page, '/login', { login, password });
  expect(callback.url.startsWith(redirectUri)).toBe(true);
  return oidc.authorizationCodeGrant(webConfig, new URL(callback.url), {
    pkceCodeVerifier: verifier,
    expectedState: state,
  });
}

/** Sends raw bytes to a process, reads everything until it closes the connection. */
function rawExchange(url: string, chunks: string[], gapMs = 0, maxMs = 20_000) {
  const { port } = new URL(url);
  return new Promise<{ text: string; closedAfterMs: number }>((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(Number(port), '127.0.0.1');
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (text += d));
    socket.on('error', () => {});
    const guard = setTimeout(() => {
      socket.destroy();
      reject(new Error(`${url} kept the connection open for ${maxMs} ms; got: ${text}`));
    }, maxMs);
    socket.on('close', () => {
      clearTimeout(guard);
      resolve({ text, closedAfterMs: Date.now() - started });
    });
    let i = 0;
    const next = () => {
      if (i >= chunks.length || socket.destroyed) return;
      socket.write(chunks[i++]!);
      if (gapMs) setTimeout(next, gapMs);
      else next();
    };
    socket.on('connect', next);
  });
}

function expectRawJsonError(text: string, status: number, code: string): void {
  const [head, body] = text.split('\r\n\r\n');
  expect(Number(head!.split(' ')[1])).toBe(status);
  expect(head).toMatch(/content-type: application\/json/i);
  const requestId = /x-request-id: (\S+)/i.exec(head!)?.[1];
  expect(requestId).toMatch(/^req_/);
  expect(JSON.parse(body!)).toEqual({
    error: { type: 'invalid_request', code, message: expect.any(String), request_id: requestId },
  });
}

beforeAll(async () => {
  [customersDb, authDb] = await Promise.all([
    createTestDatabase({ service: 'customers', migrations: customersMigrations }),
    createTestDatabase({ service: 'auth', migrations: authMigrations }),
  ]);
  customers = await startCustomersProcess({ databaseUrl: customersDb.url, brokers: brokers, secret });
  admin = new CustomersAdminClient({ baseUrl: customers.url, internalIdentitySecret: secret });
  await admin.createCustomer({ cust_id: acme, name: `Acme ${suffix}`, currency: 'USD' });
  await admin.createCustomer({ cust_id: acmeWest, name: `Acme West ${suffix}`, parent_cust_id: acme });
  await admin.createCustomer({ cust_id: globex, name: `Globex ${suffix}`, currency: 'USD' });
  const create = (cust_id: string, login: string, roles: string[]) =>
    admin.createUser({ cust_id, login, email: `${login}@e2e.example`, name: login, roles, password });
  await create(acme, users.integration, ['admin']);
  await create(acme, users.admin, ['admin']);
  await create(acme, users.shopper, ['shopper']);
  await create(acmeWest, users.westShopper, ['shopper', 'approver']);
  await create(globex, users.globexShopper, ['shopper']);
  await create(acme, users.target, ['shopper']);

  auth = await startAuthProcess({
    databaseUrl: authDb.url,
    brokers,
    secret,
    customersUrl: customers.url,
    audience,
    redisPrefix,
    consumerGroup: `auth-attack-${suffix}`,
    // As deployed behind the ingress controller: the last X-Forwarded-For entry is the client's.
    env: { TRUST_PROXY: 'true' },
  });
  gateway = await startGatewayProcess({
    issuer: auth.issuer,
    audience,
    secret,
    customersUrl: customers.url,
    redisPrefix,
  });
  service = await registerClient(acme, 'users:read users:write', [
    '--type',
    'service',
    '--login',
    users.integration,
  ]);
  web = await registerClient(acme, `openid profile email offline_access ${ALL_API_SCOPES}`, [
    '--type',
    'web',
    '--first-party',
    '--login',
    users.integration,
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
});

afterAll(async () => {
  await Promise.allSettled([gateway?.stop(), auth?.stop(), customers?.stop()]);
  await Promise.allSettled([customersDb?.drop(), authDb?.drop()]);
});

describe('1. a client signs in only users of its account tree', () => {
  it("a GLOBEX user on ACME's web client: the sign-in page refuses, the client gets access_denied, nothing is issued", async () => {
    const { browser, page } = await openSignIn();
    const refused = await browser.submit(page, '/login', { login: users.globexShopper, password });
    expect(refused.status).toBe(403);
    expect(refused.url.startsWith(redirectUri)).toBe(false);
    expect(refused.html).toMatch(/role="alert"[^>]*>[^<]*cannot sign in to/);
    const back = await browser.submit(refused, '/abort');
    const callback = new URL(back.url);
    expect(`${callback.origin}${callback.pathname}`).toBe(redirectUri);
    expect(callback.searchParams.get('error')).toBe('access_denied');
    // Not "the shopper denied access": the user never reached a consent to deny.
    expect(callback.searchParams.get('error_description')).not.toMatch(/denied/);
    expect(callback.searchParams.get('code')).toBeNull();
  });

  it("a GLOBEX user already signed in (for GLOBEX's client) is asked to sign in again by ACME's client, never granted", async () => {
    const globexWeb = await registerClient(globex, 'openid orders:read', [
      '--type',
      'web',
      '--first-party',
      '--login',
      users.globexShopper,
      '--redirect-uri',
      redirectUri,
    ]);
    const globexConfig = await oidc.discovery(
      new URL(auth.url),
      globexWeb.client_id,
      { client_secret: globexWeb.client_secret },
      oidc.ClientSecretBasic(globexWeb.client_secret),
      { execute: [oidc.allowInsecureRequests] },
    );
    const authorizeUrl = async (config: oidc.Configuration) =>
      oidc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        scope: 'openid orders:read',
        state: oidc.randomState(),
        code_challenge: await oidc.calculatePKCECodeChallenge(oidc.randomPKCECodeVerifier()),
        code_challenge_method: 'S256',
      }).href;
    const browser = new Browser(redirectUri);
    const globexPage = await browser.open(await authorizeUrl(globexConfig));
    const signedIn = await browser.submit(globexPage, '/login', { login: users.globexShopper, password });
    expect(new URL(signedIn.url).searchParams.get('code')).toEqual(expect.any(String));
    // Same browser, same session cookie, ACME's client: the sign-in page again, no code.
    const acmePage = await browser.open(await authorizeUrl(webConfig));
    expect(acmePage.url.startsWith(redirectUri)).toBe(false);
    expect(acmePage.status).toBe(200);
    expect(acmePage.html).toMatch(/<input type="password" id="password" name="password"/);
    // Asked without any page (prompt=none), ACME's client learns no more than from a browser with
    // no session at all: the same error, the same words (not that someone of another account is
    // signed in).
    const silently = async (b: Browser) => {
      const url = new URL(await authorizeUrl(webConfig));
      url.searchParams.set('prompt', 'none');
      const callback = new URL((await b.open(url.href)).url);
      expect(`${callback.origin}${callback.pathname}`).toBe(redirectUri);
      return {
        error: callback.searchParams.get('error'),
        error_description: callback.searchParams.get('error_description'),
      };
    };
    const withoutSession = await silently(new Browser(redirectUri));
    expect(withoutSession.error).toBe('login_required');
    expect(await silently(browser)).toEqual(withoutSession);
  });

  it("a user of a descendant account (ACME-WEST) signs in on ACME's client", async () => {
    const tokens = await signIn(users.westShopper, 'openid orders:read');
    expect(tokens.scope).toBe('openid orders:read');
  });
});

describe("2. a user's roles bound the scopes of a user token", () => {
  it('a shopper asking for users:read gets a token without it and cannot list the admins', async () => {
    const tokens = await signIn(users.shopper, 'openid orders:read users:read admin:all');
    expect(tokens.scope?.split(' ').sort()).toEqual(['openid', 'orders:read']);
    const res = await api('/v1/users?role=admin', tokens.access_token);
    await expectApiError(res, 403, 'permission_error', 'insufficient_scope');
  });

  it('an admin gets users:read and lists the users', async () => {
    const tokens = await signIn(users.admin, 'openid users:read');
    expect(tokens.scope?.split(' ').sort()).toEqual(['openid', 'users:read']);
    expect((await api('/v1/users', tokens.access_token)).status).toBe(200);
  });

  it('the OpenAPI document states the table', async () => {
    const doc = (await (await fetch(`${gateway.url}/v1/openapi.json`)).json()) as {
      components: { securitySchemes: { oauth2: { description: string } } };
    };
    expect(doc.components.securitySchemes.oauth2.description).toContain(
      '`shopper` and `approver` at most `openid profile email offline_access orders:read orders:write catalog:read`',
    );
  });
});

describe('3. client credentials without scope', () => {
  it("get the client's registered scopes, and the token works at the gateway", async () => {
    const { status, body } = await tokenRequest(service, { grant_type: 'client_credentials' });
    expect(status).toBe(200);
    expect(String(body.scope).split(' ').sort()).toEqual(['users:read', 'users:write']);
    expect((await api('/v1/users', body.access_token as string)).status).toBe(200);
  });
});

describe('4. a disabled client', () => {
  it('has its client-credentials tokens refused by the gateway at once', async () => {
    const doomed = await registerClient(acme, 'users:read', [
      '--type',
      'service',
      '--login',
      users.integration,
    ]);
    const { body } = await tokenRequest(doomed, { grant_type: 'client_credentials', scope: 'users:read' });
    const token = body.access_token as string;
    expect((await api('/v1/users', token)).status).toBe(200);
    await cli(['clients', 'disable', doomed.client_id]);
    const res = await api('/v1/users', token);
    expect(res.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    await expectApiError(res, 401, 'authentication_error', 'invalid_token');
  });
});

describe('5. NUL and lone surrogates are refused with the documented 4xx', () => {
  let token: string;
  beforeAll(async () => {
    token = await serviceToken('users:read users:write');
  });

  it('in a path parameter (NUL or an undecodable lone surrogate): 422 invalid_value naming it', async () => {
    await expectApiError(
      await api('/v1/users/a%00b', token),
      422,
      'invalid_request',
      'invalid_value',
      'login',
    );
    await expectApiError(
      await api('/v1/users/a%ED%A0%80', token),
      422,
      'invalid_request',
      'invalid_value',
      'login',
    );
  });

  it('in a query value: 422 invalid_value naming it', async () => {
    await expectApiError(
      await api('/v1/users?cust_id=%00', token),
      422,
      'invalid_request',
      'invalid_value',
      'cust_id',
    );
  });

  it('in a cursor: 422 invalid_value, param starting_after', async () => {
    const forged = Buffer.from(JSON.stringify({ login: 'a\u0000' })).toString('base64url');
    await expectApiError(
      await api(`/v1/users?starting_after=${forged}`, token),
      422,
      'invalid_request',
      'invalid_value',
      'starting_after',
    );
  });

  it('in a JSON string, nested or as an escaped lone surrogate: 422 invalid_value naming it', async () => {
    const post = (body: string) =>
      api('/v1/users', token, { method: 'POST', body, headers: { 'Content-Type': 'application/json' } });
    await expectApiError(
      await post(
        JSON.stringify({ login: `nul-${lower}`, email: `nul-${lower}@e2e.example`, name: 'a\u0000b' }),
      ),
      422,
      'invalid_request',
      'invalid_value',
      'name',
    );
    await expectApiError(
      await post(`{"login":"sur-${lower}","email":"sur-${lower}@e2e.example","name":"\\udc00"}`),
      422,
      'invalid_request',
      'invalid_value',
      'name',
    );
  });

  it('in a SCIM attribute: SCIM 400 invalidValue', async () => {
    const res = await api('/scim/v2/Users', token, {
      method: 'POST',
      headers: { 'Content-Type': 'application/scim+json' },
      body: JSON.stringify({
        schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'],
        userName: 'x\u0000y',
        emails: [{ value: 'x@e2e.example', primary: true }],
      }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({
      schemas: ['urn:ietf:params:scim:api:messages:2.0:Error'],
      status: '400',
      scimType: 'invalidValue',
      detail: expect.any(String),
    });
  });

  it('in an OAuth form field or credential: RFC 6749 invalid_request', async () => {
    // Each grant asked by a client allowed to use it (another is unauthorized_client).
    const forms: [typeof service, Record<string, string>][] = [
      [
        web,
        {
          grant_type: 'authorization_code',
          code: 'a\u0000',
          redirect_uri: redirectUri,
          code_verifier: 'x'.repeat(43),
        },
      ],
      // (A lone surrogate cannot travel in a form: URL encoding turns it into U+FFFD.)
      [web, { grant_type: 'refresh_token', refresh_token: 'r\u0000' }],
      [service, { grant_type: 'client_credentials', scope: 'users:read\u0000' }],
    ];
    for (const [client, form] of forms) {
      const { status, body } = await tokenRequest(client, form);
      expect({ status, body }).toEqual({
        status: 400,
        body: { error: 'invalid_request', error_description: expect.any(String) },
      });
    }
    const { status, body } = await tokenRequest(
      { client_id: 'a\u0000', client_secret: 'b' },
      { grant_type: 'client_credentials' },
    );
    expect({ status, error: body.error }).toEqual({ status: 400, error: 'invalid_request' });
  });

  it('in the sign-in form: the normal refusal', async () => {
    const { browser, page } = await openSignIn();
    const refused = await browser.submit(page, '/login', { login: `${users.shopper}\u0000`, password });
    expect(refused.status).toBe(401);
    expect(refused.html).toMatch(/role="alert"[^>]*>The login or password is not correct\./);
  });
});

describe('6. SCIM PATCH with a deeply nested value', () => {
  it('answers SCIM 400 invalidValue', async () => {
    const token = await serviceToken('users:write');
    const extension = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
    const depth = 4000; // about 25 KB of {"":{"":...}}
    const value = `${'{"":'.repeat(depth)}"x"${'}'.repeat(depth)}`;
    const res = await api(`/scim/v2/Users/${users.target}`, token, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/scim+json' },
      body: `{"schemas":["urn:ietf:params:scim:api:messages:2.0:PatchOp"],"Operations":[{"op":"replace","path":"${extension}:","value":${value}}]}`,
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ status: '400', scimType: 'invalidValue' });
  });

  it('one level of nesting under the extension is refused as well (not recursed into)', async () => {
    const token = await serviceToken('users:write');
    const extension = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';
    const res = await api(`/scim/v2/Users/${users.target}`, token, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/scim+json' },
      body: JSON.stringify({
        schemas: ['urn:ietf:params:scim:api:messages:2.0:PatchOp'],
        Operations: [{ op: 'replace', path: `${extension}:`, value: { '': { '': { department: 'x' } } } }],
      }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ status: '400', scimType: 'invalidValue' });
  });
});

describe('7. unknown fields in a request body', () => {
  it('PATCH a user with {"status":"deactivated"}: 422 unknown_field, param status, nothing changed', async () => {
    const token = await serviceToken('users:read users:write');
    const res = await api(`/v1/users/${users.target}`, token, {
      method: 'PATCH',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ status: 'deactivated' }),
    });
    await expectApiError(res, 422, 'invalid_request', 'unknown_field', 'status');
    const user = (await (await api(`/v1/users/${users.target}`, token)).json()) as { status: string };
    expect(user.status).toBe('active');
  });

  it('the OpenAPI document says additionalProperties: false on every request body', async () => {
    const doc = (await (await fetch(`${gateway.url}/v1/openapi.json`)).json()) as {
      paths: Record<
        string,
        Record<string, { requestBody?: { content: Record<string, { schema: { $ref?: string } }> } }>
      >;
      components: { schemas: Record<string, { additionalProperties?: unknown }> };
    };
    const bodies = Object.values(doc.paths)
      .flatMap((ops) => Object.values(ops))
      .map((op) => op.requestBody?.content['application/json']?.schema.$ref)
      .filter((ref): ref is string => ref !== undefined);
    expect(bodies.length).toBeGreaterThanOrEqual(5);
    for (const ref of bodies) {
      expect({
        ref,
        additionalProperties: doc.components.schemas[ref.split('/').pop()!]!.additionalProperties,
      }).toEqual({
        ref,
        additionalProperties: false,
      });
    }
  });
});

describe('8. protocol-level errors answer the JSON error shape with a request id', () => {
  it.each(['gateway', 'auth', 'customers'])('%s: 431, 400 and 417', async (name) => {
    const url = { gateway, auth, customers }[name as 'gateway' | 'auth' | 'customers']!.url;
    expectRawJsonError(
      (await rawExchange(url, [`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]))
        .text,
      431,
      'headers_too_large',
    );
    expectRawJsonError(
      (await rawExchange(url, ['GET /healthz HTTP/1.1\r\nHost: x\r\nBroken header line\r\n\r\n'])).text,
      400,
      'malformed_request',
    );
    expectRawJsonError(
      (
        await rawExchange(url, [
          'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nConnection: close\r\n\r\n',
        ])
      ).text,
      417,
      'expectation_failed',
    );
  });

  it('the sign-in page answers a body over its limit (413) as HTML', async () => {
    const { browser, page } = await openSignIn();
    const tooLarge = await browser.submit(page, '/login', {
      login: users.shopper,
      password: 'p'.repeat(20_000),
    });
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.headers.get('content-type')).toMatch(/^text\/html/);
    expect(tooLarge.html).toMatch(/<h1>/);
  });
});

describe('9. every answer to an authenticated request carries the rate-limit headers', () => {
  it('the 404 of an unknown path included', async () => {
    const token = await serviceToken('users:read');
    const res = await api('/v1/no-such-thing', token);
    expectRateLimitHeaders(res);
    await expectApiError(res, 404, 'invalid_request', 'resource_missing');
    const wrongMethod = await api('/v1/users', token, { method: 'DELETE' });
    expectRateLimitHeaders(wrongMethod);
    expect(wrongMethod.status).toBe(405);
  });
});

describe('10. thirty parallel sign-in attempts for one login (29 wrong, 1 right)', () => {
  it('check at most 5 passwords and answer the rest with the page 429 and when to retry; never a 503', async () => {
    const login = `burst-${lower}`;
    await admin.createUser({ cust_id: acme, login, email: `${login}@e2e.example`, name: login, password });
    const flows = await Promise.all(Array.from({ length: 30 }, () => openSignIn()));
    const answers = await Promise.all(
      flows.map(({ browser, page }, i) =>
        browser.submit(page, '/login', { login, password: i === 17 ? password : `wrong-${i}` }),
      ),
    );
    const outcomes = answers.map((a) => (a.url.startsWith(redirectUri) ? 'signed_in' : a.status));
    expect(outcomes.filter((o) => o === 503)).toEqual([]);
    expect(outcomes.every((o) => o === 401 || o === 429 || o === 'signed_in')).toBe(true);
    // Attempts are counted before their password is checked: at most 5 reach a password check.
    expect(outcomes.filter((o) => o !== 429).length).toBeLessThanOrEqual(5);
    expect(outcomes.filter((o) => o === 429).length).toBeGreaterThanOrEqual(25);
    for (const throttled of answers.filter((a) => a.status === 429)) {
      expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(throttled.html).toMatch(
        /role="alert"[^>]*>Too many failed attempts\. Try again in \d+ seconds\./,
      );
    }
  });
});

describe('10b. a stranger cannot lock a user out of signing in', () => {
  it('wrong passwords sent from one address refuse that address only; the user signs in from their own', async () => {
    const login = `victim-${lower}`;
    await admin.createUser({ cust_id: acme, login, email: `${login}@e2e.example`, name: login, password });
    const from = async (forwardedFor: string, attempt: string) => {
      const { browser, page } = await openSignIn();
      browser.headers = { 'x-forwarded-for': forwardedFor };
      return browser.submit(page, '/login', { login, password: attempt });
    };
    const stranger: (number | string)[] = [];
    for (let i = 0; i < 8; i++) stranger.push((await from('198.51.100.23', `guess-${i}`)).status);
    expect(stranger).toEqual([401, 401, 401, 401, 401, 429, 429, 429]);
    // Claiming the user's address in a header of their own does not help the stranger: the
    // ingress controller's entry (the last) is the address.
    expect((await from('203.0.113.5, 198.51.100.23', password)).status).toBe(429);
    // The user, at their own address: signed in, neither refused by auth nor slowed by customers.
    const started = Date.now();
    const own = await from('203.0.113.5', password);
    expect(own.url.startsWith(redirectUri)).toBe(true);
    expect(Date.now() - started).toBeLessThan(5_000);
  });
});

describe('11. slow clients', () => {
  it('headers trickled to the gateway or the auth service: 408 in the JSON shape, connection closed', async () => {
    const trickle = [
      'GET /healthz HTTP/1.1\r\n',
      ...Array.from({ length: 40 }, (_, i) => `X-Slow-${i}: 1\r\n`),
    ];
    const [viaGateway, viaAuth] = await Promise.all([
      rawExchange(gateway.url, trickle, 500, 20_000),
      rawExchange(auth.url, trickle, 500, 20_000),
    ]);
    for (const answer of [viaGateway, viaAuth]) {
      expectRawJsonError(answer.text, 408, 'request_timeout');
      expect(answer.closedAfterMs).toBeLessThan(15_000);
    }
  });

  it('a request answered while its body still trickles in has its connection closed', async () => {
    const head =
      'POST /v1/users HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer not-a-token\r\n' +
      'Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{';
    const answer = await rawExchange(
      gateway.url,
      [head, ...Array.from({ length: 40 }, () => ' ')],
      250,
      20_000,
    );
    expect(answer.text).toMatch(/^HTTP\/1.1 401/);
    expect(answer.closedAfterMs).toBeLessThan(5_000);
  });
});
