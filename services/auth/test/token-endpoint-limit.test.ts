// The token endpoint's limit (README, "Token endpoint limits") on the real Redis and PostgreSQL:
// small buckets refilled every second, so that a test sees the refusal and the refill.
import { Writable } from 'node:stream';
import * as client from 'openid-client';
import { createLogger } from '@ordering/http';
import { REDIS_URL, TcpProxy } from '@ordering/testing';
import { startTestMetrics, type TestMetrics } from '@ordering/telemetry';
import { OIDC_PAYLOADS_TABLE } from '../src/data-access/oidc-payload-repository';
import { REDIRECT_URI, startAuthHarness, type AuthHarness } from './support/auth-test-harness';
import { Browser } from './support/browser';
import { authorizationRequest } from './support/authorization-request';

const LIMITS = {
  TOKEN_LIMIT_CLIENT_BURST: '3',
  TOKEN_LIMIT_CLIENT_REFILL_SECONDS: '1',
  TOKEN_LIMIT_USER_BURST: '2',
  TOKEN_LIMIT_USER_REFILL_SECONDS: '1',
  TOKEN_LIMIT_FAILED_AUTHENTICATION_BURST: '2',
  TOKEN_LIMIT_FAILED_AUTHENTICATION_REFILL_SECONDS: '1',
};

let metrics: TestMetrics;
let h: AuthHarness;
beforeAll(async () => {
  metrics = startTestMetrics();
  h = await startAuthHarness(LIMITS);
  for (const login of ['ann', 'bob'])
    h.customers.add({
      login,
      password: 'correct horse',
      cust_id: 'ACME',
      name: login,
      email: `${login}@acme.test`,
    });
});
afterAll(async () => {
  await h?.close();
  await metrics?.shutdown();
});

type Auth = { id: string; secret: string };

async function tokenRequest(issuer: string, body: Record<string, string>, auth: Auth) {
  const res = await fetch(`${issuer}/oauth/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${auth.id}:${auth.secret}`).toString('base64')}`,
    },
    body: new URLSearchParams(body).toString(),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

const clientCredentials = (auth: Auth, issuer = h.issuer) =>
  tokenRequest(issuer, { grant_type: 'client_credentials', scope: 'orders:read' }, auth);

async function serviceClient(): Promise<Auth> {
  const { client: c, clientSecret } = await h.register({ type: 'service', scopes: ['orders:read'] });
  return { id: c.clientId, secret: clientSecret! };
}

const sleep = (seconds: number) => new Promise((r) => setTimeout(r, seconds * 1000));

/** Everything the token endpoint writes or signs: provider rows, grant token records, tokens issued. */
async function footprint() {
  const rows = await h.db.knex(OIDC_PAYLOADS_TABLE).count<{ count: string }[]>({ count: '*' });
  const grantKeys = await h.redis.keys(`${h.config.REDIS_KEY_PREFIX}grant-tokens:*`);
  let recorded = 0;
  for (const key of grantKeys) recorded += await h.redis.zcard(key);
  const issued = [
    ...(await metrics.text()).matchAll(/^ordering_auth_tokens_issued_total\{[^}]*\} (\d+)$/gm),
  ].reduce((sum, m) => sum + Number(m[1]), 0);
  return { rows: Number(rows[0]!.count), recorded, issued };
}

function expectRefusal(answer: { status: number; headers: Headers; body: Record<string, unknown> }) {
  expect(answer.status).toBe(429);
  const retryAfter = answer.headers.get('retry-after');
  expect(retryAfter).toMatch(/^[1-9][0-9]*$/);
  expect(answer.headers.get('cache-control')).toBe('no-store');
  expect(answer.headers.get('content-type')).toMatch(/^application\/json/);
  expect(answer.body).toEqual({ error: 'too_many_requests', error_description: expect.any(String) });
  return Number(retryAfter);
}

describe('client credentials: one bucket per client', () => {
  it('serves the burst, then 429 with Retry-After and an OAuth body, then serves again after the refill; another client is not affected', async () => {
    const erp = await serviceClient();
    const other = await serviceClient();
    for (let i = 0; i < 3; i++) expect((await clientCredentials(erp)).status).toBe(200);
    const before = await footprint();
    const refused = await clientCredentials(erp);
    const retryAfter = expectRefusal(refused);
    expect(retryAfter).toBe(1);
    expect(refused.body.error_description).toMatch(/reuse an access token/);
    // A refused request signed and wrote nothing.
    expect(await footprint()).toEqual(before);

    expect((await clientCredentials(other)).status).toBe(200);

    await sleep(retryAfter);
    const again = await clientCredentials(erp);
    expect(again.status).toBe(200);
    expect(again.body.access_token).toEqual(expect.any(String));

    const text = await metrics.text();
    expect(text).toMatch(/^ordering_auth_token_rate_limit_refusals_total\{bucket="client"[^}]*\} 1$/m);
    expect(text).toMatch(
      /^ordering_auth_token_errors_total\{error="too_many_requests",endpoint="token"[^}]*\} [1-9]/m,
    );
  });

  it('surfaces to openid-client as an error carrying the 429 and the OAuth error code', async () => {
    const erp = await serviceClient();
    const config = await h.discover(erp.id, erp.secret);
    for (let i = 0; i < 3; i++) await client.clientCredentialsGrant(config, { scope: 'orders:read' });
    const refused = await client.clientCredentialsGrant(config, { scope: 'orders:read' }).then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(refused).toBeInstanceOf(client.ResponseBodyError);
    expect(refused).toMatchObject({ status: 429, error: 'too_many_requests' });
    expect((refused as client.ResponseBodyError).response.headers.get('retry-after')).toMatch(/^[1-9]/);
  });

  it('counts failed client authentications apart: guessing is refused with 429, the real client keeps its tokens', async () => {
    const erp = await serviceClient();
    const guess = { id: erp.id, secret: 'cs_not-the-secret' };
    expect((await clientCredentials(guess)).status).toBe(401);
    expect((await clientCredentials(guess)).status).toBe(401);
    // The third guess is not even checked against the client's secret by the provider.
    expectRefusal(await clientCredentials(guess));
    expectRefusal(await clientCredentials({ id: erp.id, secret: erp.secret.slice(0, -1) }));
    // The client with its real secret is not locked out by someone else's guesses.
    expect((await clientCredentials(erp)).status).toBe(200);
    // An unknown client id gets its own bucket too.
    const unknown = { id: 'no-such-client', secret: 'x' };
    expect((await clientCredentials(unknown)).status).toBe(401);
    expect((await clientCredentials(unknown)).status).toBe(401);
    expectRefusal(await clientCredentials(unknown));
  });
});

describe('authorization code and refresh token: one bucket per client and user', () => {
  async function webClient() {
    const { client: c, clientSecret } = await h.register({
      type: 'web',
      firstParty: true,
      scopes: ['openid', 'orders:read'],
      name: 'Portal',
    });
    return { id: c.clientId, secret: clientSecret!, config: await h.discover(c.clientId, clientSecret) };
  }

  async function signIn(config: client.Configuration, login: string) {
    const { url, verifier, state } = await authorizationRequest(config, {
      redirectUri: REDIRECT_URI,
      scope: 'openid orders:read',
    });
    const browser = new Browser(REDIRECT_URI);
    const page = await browser.open(url.href);
    const callback = await browser.submit(page, '/login', { login, password: 'correct horse' });
    return client.authorizationCodeGrant(config, new URL(callback.url), {
      pkceCodeVerifier: verifier,
      expectedState: state,
    });
  }

  it('two users of one web client do not share a bucket; a refused refresh writes nothing and its refresh token still works', async () => {
    const web = await webClient();
    const refresh = (token: string) =>
      tokenRequest(h.issuer, { grant_type: 'refresh_token', refresh_token: token }, web);

    // Ann: the code exchange and one refresh take her bucket of 2.
    const ann = await signIn(web.config, 'ann');
    const annRefreshed = await refresh(ann.refresh_token!);
    expect(annRefreshed.status).toBe(200);
    const annToken = annRefreshed.body.refresh_token as string;
    const before = await footprint();
    const refused = await refresh(annToken);
    const retryAfter = expectRefusal(refused);
    expect(refused.body.error_description).toMatch(/client and user/);
    // Nothing consumed, rotated, recorded or signed.
    expect(await footprint()).toEqual(before);

    // Bob, same client, has his own bucket.
    const bob = await signIn(web.config, 'bob');
    expect((await refresh(bob.refresh_token!)).status).toBe(200);

    // After the refill Ann's refresh token, untouched by the refused request, is accepted (not a replay).
    await sleep(retryAfter);
    const later = await refresh(annToken);
    expect(later.status).toBe(200);
    expect(later.body.refresh_token).toEqual(expect.any(String));

    expect(await metrics.text()).toMatch(
      /^ordering_auth_token_rate_limit_refusals_total\{bucket="user"[^}]*\} 1$/m,
    );
  });
});

describe('Redis unreachable', () => {
  it('keeps issuing client-credentials tokens, limited per process, and logs the outage once', async () => {
    const redisUrl = new URL(REDIS_URL);
    const proxy = await new TcpProxy(redisUrl.hostname, Number(redisUrl.port || 6379)).open();
    const lines: { level?: number | string; msg?: string }[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString().split('\n').filter(Boolean))
          lines.push(JSON.parse(line) as { msg?: string });
        done();
      },
    });
    const down = await startAuthHarness(
      // A refill slower than the test, so that the refusal below does not depend on its speed.
      { ...LIMITS, TOKEN_LIMIT_CLIENT_REFILL_SECONDS: '600', REDIS_URL: `redis://127.0.0.1:${proxy.port}` },
      { logger: createLogger({ service: 'auth', level: 'info', destination }) },
    );
    try {
      const { client: c, clientSecret } = await down.register({ type: 'service', scopes: ['orders:read'] });
      const erp = { id: c.clientId, secret: clientSecret! };
      await proxy.cut();

      for (let i = 0; i < 3; i++) {
        const answer = await clientCredentials(erp, down.issuer);
        expect(answer.status).toBe(200);
        expect(answer.body.access_token).toEqual(expect.any(String));
      }
      // The limit still holds, in this process.
      expectRefusal(await clientCredentials(erp, down.issuer));
      expect(
        lines.filter((l) => /token endpoint limits are counted per auth process/.test(l.msg ?? '')),
      ).toHaveLength(1);
    } finally {
      await down.close();
      await proxy.cut();
    }
  });
});
