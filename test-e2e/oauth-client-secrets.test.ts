// OAuth client secrets as account admins manage them, each service as its own process: the
// account's clients listed through the gateway with real tokens (never a secret), each secret's
// issue and due dates (180 days), a rotation through the gateway (the new secret shown once, the
// old one working 24 h more) and a secret past its due date refused at the token endpoint. Time is
// moved by writing the dates the service keeps (issued 181 days ago, overlap ended) in its database.
import { randomBytes } from 'node:crypto';
import { authCli, migrations as authMigrations } from '@ordering/auth-service';
import { CustomersAdminClient, migrations as customersMigrations } from '@ordering/customers-service';
import { OAuthClientList, OAuthClientResource, OAuthClientWithSecret } from '@ordering/contracts';
import { createTestDatabase, type TestDatabase } from '@ordering/testing';
import { startAuthProcess, startCustomersProcess, startGatewayProcess } from './support/platform-processes';
import type { ServiceProcess } from './support/service-process';

jest.setTimeout(90_000);

const brokers = process.env.KAFKA_BROKERS ?? '127.0.0.1:29092';
const secret = randomBytes(32).toString('hex');
const suffix = randomBytes(3).toString('hex').toUpperCase();
const custId = `OCS-${suffix}`;
const childId = `OCS-${suffix}-EU`;
const otherId = `OCS-${suffix}-OTHER`;
const integration = `integration-${suffix.toLowerCase()}`;
const audience = 'http://api.e2e.test';
const DAY_MS = 24 * 3600 * 1000;

let customersDb: TestDatabase;
let authDb: TestDatabase;
let customers: ServiceProcess;
let auth: ServiceProcess & { issuer: string };
let gateway: ServiceProcess;

interface Registered {
  client_id: string;
  client_secret?: string;
}

async function register(account: string, scopes: string, extra: string[] = []): Promise<Registered> {
  let printed = '';
  await authCli({ env: { ...process.env, DATABASE_URL: authDb.url }, out: (t) => (printed += t) }).parseAsync(
    ['clients', 'register', '--name', `Client of ${account}`, '--scopes', scopes, '--cust-id', account]
      .concat(['--login', integration])
      .concat(extra.length ? extra : ['--type', 'service']),
    { from: 'user' },
  );
  return JSON.parse(printed) as Registered;
}

async function token(id: string, clientSecret: string, scope: string) {
  const res = await fetch(`${auth.url}/oauth/token`, {
    method: 'POST',
    headers: {
      Authorization: `Basic ${Buffer.from(`${id}:${clientSecret}`).toString('base64')}`,
      'Content-Type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', scope }),
  });
  return {
    status: res.status,
    wwwAuthenticate: res.headers.get('www-authenticate'),
    body: (await res.json()) as { access_token?: string; error?: string; error_description?: string },
  };
}

async function api(path: string, bearer: string, method = 'GET') {
  const res = await fetch(`${gateway.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${bearer}` },
  });
  return { status: res.status, text: await res.text(), headers: res.headers };
}

let adminClient: Registered;
let adminToken: string;

beforeAll(async () => {
  [customersDb, authDb] = await Promise.all([
    createTestDatabase({ service: 'customers', migrations: customersMigrations }),
    createTestDatabase({ service: 'auth', migrations: authMigrations }),
  ]);
  customers = await startCustomersProcess({ databaseUrl: customersDb.url, brokers, secret });
  const admin = new CustomersAdminClient({ baseUrl: customers.url, internalIdentitySecret: secret });
  await admin.createCustomer({ cust_id: custId, name: `Secrets ${suffix}`, currency: 'USD' });
  await admin.createCustomer({
    cust_id: childId,
    name: `Secrets EU ${suffix}`,
    currency: 'EUR',
    parent_cust_id: custId,
  });
  await admin.createCustomer({ cust_id: otherId, name: `Other ${suffix}`, currency: 'USD' });
  auth = await startAuthProcess({
    databaseUrl: authDb.url,
    brokers,
    secret,
    customersUrl: customers.url,
    audience,
    redisPrefix: `e2e-ocs-${suffix}:`,
    consumerGroup: `auth-ocs-${suffix}`,
  });
  gateway = await startGatewayProcess({
    issuer: auth.issuer,
    audience,
    secret,
    customersUrl: customers.url,
    redisPrefix: `e2e-ocs-${suffix}:`,
    authUrl: auth.url,
  });
  adminClient = await register(custId, 'admin:all orders:read');
  const t = await token(adminClient.client_id, adminClient.client_secret!, 'admin:all');
  expect(t.status).toBe(200);
  adminToken = t.body.access_token!;
});

afterAll(async () => {
  await Promise.allSettled([gateway?.stop(), auth?.stop(), customers?.stop()]);
  await Promise.allSettled([customersDb?.drop(), authDb?.drop()]);
});

describe('OAuth clients of an account, through the gateway', () => {
  it("lists the clients of the token's account and its descendants with their due dates, never a secret", async () => {
    const child = await register(childId, 'orders:read');
    const other = await register(otherId, 'orders:read');
    const res = await api('/v1/oauth_clients?limit=100', adminToken);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const list = OAuthClientList.parse(JSON.parse(res.text));
    const ids = list.data.map((c) => c.id);
    expect(ids).toEqual(expect.arrayContaining([adminClient.client_id, child.client_id]));
    expect(ids).not.toContain(other.client_id);
    expect(res.text).not.toContain(adminClient.client_secret!);
    expect(res.text).not.toContain(child.client_secret!);
    expect(res.text).not.toMatch(/client_secret|secret_hash|cs_/);

    const mine = list.data.find((c) => c.id === adminClient.client_id)!;
    expect(mine).toMatchObject({
      object: 'oauth_client',
      cust_id: custId,
      type: 'service',
      status: 'active',
    });
    const issued = Date.parse(mine.secret_issued_at!);
    expect(Math.abs(issued - Date.now())).toBeLessThan(60_000);
    expect(Date.parse(mine.secret_due_at!) - issued).toBe(180 * DAY_MS);
    expect(mine.secret_overdue).toBe(false);
    expect(mine.previous_secret_expires_at).toBeNull();

    // Another account's client does not exist for this admin.
    expect((await api(`/v1/oauth_clients/${other.client_id}`, adminToken)).status).toBe(404);
    const one = await api(`/v1/oauth_clients/${child.client_id}`, adminToken);
    expect(one.status).toBe(200);
    expect(OAuthClientResource.parse(JSON.parse(one.text)).id).toBe(child.client_id);
  });

  it('pages with limit and starting_after', async () => {
    const first = OAuthClientList.parse(
      JSON.parse((await api('/v1/oauth_clients?limit=1', adminToken)).text),
    );
    expect(first.data).toHaveLength(1);
    expect(first.has_more).toBe(true);
    const second = OAuthClientList.parse(
      JSON.parse(
        (
          await api(
            `/v1/oauth_clients?limit=1&starting_after=${encodeURIComponent(first.next_cursor!)}`,
            adminToken,
          )
        ).text,
      ),
    );
    expect(second.data[0]!.id).not.toBe(first.data[0]!.id);
  });

  it('is for admins only: a token without admin:all is refused with 403 insufficient_scope', async () => {
    const t = await token(adminClient.client_id, adminClient.client_secret!, 'orders:read');
    const res = await api('/v1/oauth_clients', t.body.access_token!);
    expect(res.status).toBe(403);
    expect(JSON.parse(res.text).error.code).toBe('insufficient_scope');
    expect((await api('/v1/oauth_clients', 'not-a-token')).status).toBe(401);
  });

  it('rotates a secret: the new one is shown once, the old one keeps working for 24 hours, then stops', async () => {
    const c = await register(custId, 'orders:read');
    const rotated = await api(`/v1/oauth_clients/${c.client_id}/rotate_secret`, adminToken, 'POST');
    expect(rotated.status).toBe(200);
    const body = OAuthClientWithSecret.parse(JSON.parse(rotated.text));
    expect(body.client_secret).toMatch(/^cs_/);
    expect(body.client_secret).not.toBe(c.client_secret);
    expect(Math.abs(Date.parse(body.previous_secret_expires_at!) - (Date.now() + DAY_MS))).toBeLessThan(
      60_000,
    );
    expect(Date.parse(body.secret_due_at!) - Date.parse(body.secret_issued_at!)).toBe(180 * DAY_MS);

    // Never shown again.
    const again = await api(`/v1/oauth_clients/${c.client_id}`, adminToken);
    expect(again.text).not.toContain(body.client_secret);
    expect(JSON.parse(again.text).previous_secret_expires_at).toBe(body.previous_secret_expires_at);

    expect((await token(c.client_id, body.client_secret, 'orders:read')).status).toBe(200);
    expect((await token(c.client_id, c.client_secret!, 'orders:read')).status).toBe(200);

    // 24 hours later.
    await authDb
      .knex('oauth_clients')
      .where({ client_id: c.client_id })
      .update({ previous_secret_expires_at: new Date(Date.now() - 1000) });
    const old = await token(c.client_id, c.client_secret!, 'orders:read');
    expect(old.status).toBe(401);
    expect(old.body.error).toBe('invalid_client');
    expect((await token(c.client_id, body.client_secret, 'orders:read')).status).toBe(200);
    expect(
      JSON.parse((await api(`/v1/oauth_clients/${c.client_id}`, adminToken)).text).previous_secret_expires_at,
    ).toBeNull();
  });

  it('refuses a secret past its due date at the token endpoint (invalid_client) until it is rotated', async () => {
    const c = await register(custId, 'orders:read');
    await authDb
      .knex('oauth_clients')
      .where({ client_id: c.client_id })
      .update({ secret_rotated_at: new Date(Date.now() - 181 * DAY_MS) });
    const refused = await token(c.client_id, c.client_secret!, 'orders:read');
    expect(refused.status).toBe(401);
    expect(refused.body.error).toBe('invalid_client');
    expect(refused.body.error_description).toMatch(/expired/);
    expect(refused.wwwAuthenticate).toMatch(/^Basic/);

    // Introspection authenticates clients the same way.
    const introspect = await fetch(`${auth.url}/oauth/introspect`, {
      method: 'POST',
      headers: {
        Authorization: `Basic ${Buffer.from(`${c.client_id}:${c.client_secret}`).toString('base64')}`,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ token: adminToken }),
    });
    expect(introspect.status).toBe(401);

    const view = JSON.parse((await api(`/v1/oauth_clients/${c.client_id}`, adminToken)).text);
    expect(view.secret_overdue).toBe(true);

    // An overdue secret is not kept by the rotation: it stops at once, the new one works.
    const rotated = JSON.parse(
      (await api(`/v1/oauth_clients/${c.client_id}/rotate_secret`, adminToken, 'POST')).text,
    );
    expect(rotated.previous_secret_expires_at).toBeNull();
    expect(rotated.secret_overdue).toBe(false);
    expect((await token(c.client_id, rotated.client_secret, 'orders:read')).status).toBe(200);
    expect((await token(c.client_id, c.client_secret!, 'orders:read')).status).toBe(401);
  });

  it('refuses a rotation whose body is not JSON (415), rotating nothing: a form field is never dropped unseen', async () => {
    const c = await register(custId, 'orders:read');
    const before = JSON.parse((await api(`/v1/oauth_clients/${c.client_id}`, adminToken)).text) as {
      secret_issued_at: string;
    };
    for (const [contentType, body] of [
      ['application/x-www-form-urlencoded', 'expires_in=1'],
      ['text/plain', '{}'],
    ]) {
      const res = await fetch(`${gateway.url}/v1/oauth_clients/${c.client_id}/rotate_secret`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': contentType! },
        body,
      });
      const answer = (await res.json()) as { error?: { type: string; code: string; request_id: string } };
      expect({ status: res.status, type: answer.error?.type, code: answer.error?.code }).toEqual({
        status: 415,
        type: 'invalid_request',
        code: 'unsupported_media_type',
      });
      expect(answer.error?.request_id).toBe(res.headers.get('x-request-id'));
    }
    const after = JSON.parse((await api(`/v1/oauth_clients/${c.client_id}`, adminToken)).text) as {
      secret_issued_at: string;
      previous_secret_expires_at: string | null;
    };
    expect(after).toMatchObject({
      secret_issued_at: before.secret_issued_at,
      previous_secret_expires_at: null,
    });
    expect((await token(c.client_id, c.client_secret!, 'orders:read')).status).toBe(200);
  });

  it('refuses to rotate what has no secret (409 client_has_no_secret) and a stranger client (404)', async () => {
    const native = await register(custId, 'openid orders:read', [
      '--type',
      'native',
      '--redirect-uri',
      'http://127.0.0.1:8976/callback',
    ]);
    const res = await api(`/v1/oauth_clients/${native.client_id}/rotate_secret`, adminToken, 'POST');
    expect(res.status).toBe(409);
    expect(JSON.parse(res.text).error.code).toBe('client_has_no_secret');
    const view = JSON.parse((await api(`/v1/oauth_clients/${native.client_id}`, adminToken)).text);
    expect(view).toMatchObject({
      type: 'native',
      secret_issued_at: null,
      secret_due_at: null,
      secret_overdue: false,
    });

    const stranger = await register(otherId, 'orders:read');
    const refused = await api(`/v1/oauth_clients/${stranger.client_id}/rotate_secret`, adminToken, 'POST');
    expect(refused.status).toBe(404);
    expect((await token(stranger.client_id, stranger.client_secret!, 'orders:read')).status).toBe(200);
  });
});
