import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import request from 'supertest';
import { verifyIdentity } from '@ordering/http';
import { expectApiError } from './support/api-assertions';
import { type Harness, IDENTITY_SECRET, REDIS_URL, startHarness } from './support/gateway-harness';
import { closedPort } from './support/recording-upstream';
import { TestIssuer, newSigningKey } from './support/test-issuer';
import { waitFor } from './support/wait-for';

let h: Harness;
let redis: Redis;

beforeAll(async () => {
  h = await startHarness({ env: { JWKS_REQUESTS_PER_MINUTE: '3' } });
  redis = new Redis(REDIS_URL);
});
afterAll(async () => {
  await h.stop();
  await redis.quit();
});
beforeEach(() => Object.values(h.upstreams).forEach((u) => u.reset()));

const now = () => Math.floor(Date.now() / 1000);
const get = (path: string, token?: string) => {
  const req = request(h.url).get(path);
  return token === undefined ? req : req.set('Authorization', `Bearer ${token}`);
};

function expectInvalidToken(res: request.Response): void {
  expectApiError(res, 401, 'authentication_error', 'invalid_token');
  expect(res.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
}

describe('bearer tokens', () => {
  it('forwards a valid RS256 token to the service', async () => {
    await get('/v1/orders', h.issuer.mint()).expect(200);
    expect(h.upstreams.orders.received).toHaveLength(1);
  });

  const badTokens: [string, () => string | undefined][] = [
    ['no Authorization header', () => undefined],
    ['an empty bearer token', () => ''],
    ['not a JWT', () => 'not-a-jwt'],
    ['three parts of garbage', () => 'aaa.bbb.ccc'],
    ['an expired token (past the 5 s skew)', () => h.issuer.mint({ iat: now() - 3600, exp: now() - 10 })],
    ['a token not valid before a minute from now', () => h.issuer.mint({ nbf: now() + 60 })],
    ['a token for another audience', () => h.issuer.mint({ audience: 'https://other-api.test' })],
    ['a token from another issuer', () => h.issuer.mint({ issuer: 'https://evil.test' })],
    [
      'a token signed by another key under a published kid',
      () => h.issuer.mint({ key: newSigningKey(), kid: h.issuer.currentKey.kid }),
    ],
    ['a token signed by an unpublished key', () => h.issuer.mint({ key: newSigningKey() })],
    ['an unsigned token (alg none)', () => h.issuer.mintUnsigned()],
    ['an HS256 token keyed with the public key', () => h.issuer.mintHs256WithPublicKey()],
    ['a token without cust_id', () => h.issuer.mint({ omit: ['cust_id'] })],
    ['a token without jti', () => h.issuer.mint({ omit: ['jti'] })],
    ['a token without kid', () => h.issuer.mint({ kid: '' })],
    // RFC 9068 section 4: only a JWT typed as an access token (an ID token is typed `JWT`).
    ['a token typed JWT (not an access token)', () => h.issuer.mint({ typ: 'JWT' })],
    ['a token without typ', () => h.issuer.mint({ typ: null })],
    [
      'a tampered payload',
      () => {
        const [header, , signature] = h.issuer.mint({ scope: 'orders:read' }).split('.');
        const payload = Buffer.from(JSON.stringify(h.issuer.claims({ scope: 'admin:all' }))).toString(
          'base64url',
        );
        return `${header}.${payload}.${signature}`;
      },
    ],
  ];

  it.each(badTokens)('refuses %s with 401 invalid_token and the Bearer challenge', async (_name, token) => {
    const res = await get('/v1/orders', token());
    expectInvalidToken(res);
    expect(h.upstreams.orders.received).toHaveLength(0);
  });

  it('accepts the access token type in its media type form and in any case (RFC 9068)', async () => {
    await get('/v1/orders', h.issuer.mint({ typ: 'application/at+jwt' })).expect(200);
    await get('/v1/orders', h.issuer.mint({ typ: 'AT+JWT' })).expect(200);
  });

  it('refuses an Authorization header of another scheme', async () => {
    const res = await request(h.url)
      .get('/v1/orders')
      .set('Authorization', `Basic ${Buffer.from('a:b').toString('base64')}`);
    expectInvalidToken(res);
  });

  it('tolerates 5 s of clock skew on exp and nbf', async () => {
    await get('/v1/orders', h.issuer.mint({ iat: now() - 3600, exp: now() - 2 })).expect(200);
    await get('/v1/orders', h.issuer.mint({ nbf: now() + 2 })).expect(200);
  });

  it('refuses a token it accepted a moment ago once the token expires (past the skew)', async () => {
    // Expires (5 s skew included) three seconds from now: time for the first request on a loaded
    // machine (with one second, a first answer slower than that was already a 401).
    const token = h.issuer.mint({ iat: now() - 3600, exp: now() - 2 });
    await get('/v1/orders', token).expect(200);
    await waitFor(async () => (await get('/v1/orders', token)).status === 401, 6000, 'the token to expire');
    expectInvalidToken(await get('/v1/orders', token));
  });

  it('accepts a token of a rotated-in key after one JWKS refresh, and never fetches per request', async () => {
    await get('/v1/orders', h.issuer.mint()).expect(200);
    const fetchesBefore = h.issuer.jwksFetches;
    for (let i = 0; i < 5; i++) await get('/v1/orders', h.issuer.mint()).expect(200);
    expect(h.issuer.jwksFetches).toBe(fetchesBefore);

    const oldKey = h.issuer.currentKey;
    h.issuer.rotate();
    await get('/v1/orders', h.issuer.mint()).expect(200);
    expect(h.issuer.jwksFetches).toBe(fetchesBefore + 1);
    // Both keys are now known: no further fetch for either.
    await get('/v1/orders', h.issuer.mint()).expect(200);
    await get('/v1/orders', h.issuer.mint({ key: oldKey })).expect(200);
    expect(h.issuer.jwksFetches).toBe(fetchesBefore + 1);
  });

  it('rate-limits JWKS refreshes caused by unknown key ids', async () => {
    const fetchesBefore = h.issuer.jwksFetches;
    for (let i = 0; i < 8; i++)
      expectInvalidToken(await get('/v1/orders', h.issuer.mint({ kid: `unknown-${i}` })));
    // JWKS_REQUESTS_PER_MINUTE=3 (some may already be spent by the rotation test).
    expect(h.issuer.jwksFetches - fetchesBefore).toBeLessThanOrEqual(3);
  });
});

describe('scopes', () => {
  it('refuses a token without the route scope with 403 insufficient_scope', async () => {
    const res = await get('/v1/orders', h.issuer.mint({ scope: 'catalog:read' }));
    expectApiError(res, 403, 'permission_error', 'insufficient_scope');
    expect(res.headers['www-authenticate']).toBe('Bearer error="insufficient_scope", scope="orders:read"');
    const write = await request(h.url)
      .post('/v1/orders')
      .set('Authorization', `Bearer ${h.issuer.mint({ scope: 'orders:read' })}`)
      .send({});
    expectApiError(write, 403, 'permission_error', 'insufficient_scope');
    const webhooks = await get(
      '/v1/webhooks',
      h.issuer.mint({ scope: 'orders:read orders:write users:write' }),
    );
    expectApiError(webhooks, 403, 'permission_error', 'insufficient_scope');
    expect(Object.values(h.upstreams).every((u) => u.received.length === 0)).toBe(true);
  });

  it('lets any one of the listed scopes through (customers: orders:read or admin:all)', async () => {
    await get('/v1/customers', h.issuer.mint({ scope: 'orders:read' })).expect(200);
    await get('/v1/users', h.issuer.mint({ scope: 'users:read' })).expect(200);
  });

  it('lets admin:all through every route', async () => {
    const admin = h.issuer.mint({ scope: 'admin:all' });
    await get('/v1/orders', admin).expect(200);
    await get('/v1/catalog/items', admin).expect(200);
    await get('/v1/users', admin).expect(200);
    await get('/v1/webhooks', admin).expect(200);
  });
});

describe('identity towards the services', () => {
  it('sends the verified identity signed, never the client forged one, nor the Authorization header', async () => {
    const forged = 'eyJzdWIiOiJhZG1pbiJ9.forged';
    const jti = randomUUID();
    await request(h.url)
      .get('/v1/orders')
      .set(
        'Authorization',
        `Bearer ${h.issuer.mint({ jti, cust_id: 'ACME', login: 'alice', scope: 'orders:read orders:write' })}`,
      )
      .set('X-Ordering-Identity', forged)
      .set('X-Ordering-Internal', 'yes')
      .expect(200);
    const seen = h.upstreams.orders.last?.headers ?? {};
    expect(seen.authorization).toBeUndefined();
    expect(seen['x-ordering-internal']).toBeUndefined();
    expect(seen['x-ordering-identity']).not.toBe(forged);
    const identity = verifyIdentity(String(seen['x-ordering-identity']), IDENTITY_SECRET);
    expect(identity).toEqual({
      sub: 'shopper:acme:alice',
      cust_id: 'ACME',
      login: 'alice',
      client_id: 'client_test',
      scopes: ['orders:read', 'orders:write'],
      jti,
      exp: expect.any(Number),
    });
  });
});

describe('revocation', () => {
  it('refuses a token whose jti is on the denylist', async () => {
    const jti = randomUUID();
    const token = h.issuer.mint({ jti });
    await get('/v1/orders', token).expect(200);
    await redis.set(`${h.keyPrefix}revoked:jti:${jti}`, '1', 'EX', 60);
    const res = await get('/v1/orders', token);
    expectInvalidToken(res);
    expect(res.body.error.message).toMatch(/revoked/);
    expect(h.upstreams.orders.received).toHaveLength(1);
  });

  it("refuses a subject's tokens issued at or before the revocation time, not those issued after", async () => {
    const login = `user-${randomUUID()}`;
    const revokedAt = now();
    const before = h.issuer.mint({ login, iat: revokedAt - 60 });
    const atTheSameSecond = h.issuer.mint({ login, iat: revokedAt });
    const after = h.issuer.mint({ login, iat: revokedAt + 1 });
    await redis.set(`${h.keyPrefix}revoked:sub:shopper:acme:${login}`, String(revokedAt), 'EX', 60);
    expectInvalidToken(await get('/v1/orders', before));
    expectInvalidToken(await get('/v1/orders', atTheSameSecond));
    await get('/v1/orders', after).expect(200);
  });

  it('refuses every token of a signing key from the time its mark names, though the cached JWKS still holds the key', async () => {
    const token = h.issuer.mint();
    const kid = h.issuer.currentKey.kid;
    await get('/v1/orders', token).expect(200);
    await redis.set(`${h.keyPrefix}revoked:kid:${kid}`, String(now() + 3600), 'EX', 60);
    await get('/v1/orders', token).expect(200);
    await redis.set(`${h.keyPrefix}revoked:kid:${kid}`, String(now()), 'EX', 60);
    try {
      expectInvalidToken(await get('/v1/orders', token));
      expectInvalidToken(await get('/v1/orders', h.issuer.mint()));
    } finally {
      await redis.del(`${h.keyPrefix}revoked:kid:${kid}`);
    }
    await get('/v1/orders', token).expect(200);
  });

  it('carries the rate-limit headers on a refusal after the token was verified', async () => {
    const jti = randomUUID();
    await redis.set(`${h.keyPrefix}revoked:jti:${jti}`, '1', 'EX', 60);
    const res = await get('/v1/orders', h.issuer.mint({ jti }));
    expectInvalidToken(res);
    expect(res.headers['x-ratelimit-limit']).toBe('120');
  });
});

describe('when the signing keys cannot be fetched', () => {
  it('answers 503 service_unavailable rather than calling a good token invalid', async () => {
    const issuer = await new TestIssuer().start();
    const unreachable = await startHarness({
      issuer,
      env: { AUTH_JWKS_URL: `http://127.0.0.1:${await closedPort()}/oauth/jwks.json` },
    });
    try {
      const res = await request(unreachable.url)
        .get('/v1/orders')
        .set('Authorization', `Bearer ${issuer.mint()}`);
      expectApiError(res, 503, 'api_error', 'service_unavailable');
      expect(unreachable.upstreams.orders.received).toHaveLength(0);
    } finally {
      await unreachable.stop();
      await issuer.close();
    }
  });
});
