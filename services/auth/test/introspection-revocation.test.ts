import { randomUUID } from 'node:crypto';
import * as client from 'openid-client';
import { SignJWT, decodeJwt, importJWK } from 'jose';
import { Kafka, logLevel, type Producer } from 'kafkajs';
import { TOPICS, newEvent } from '@ordering/contracts';
import { decodeKey } from '../src/config';
import { ClientRepository } from '../src/data-access/client-repository';
import { deleteGrantsOfClient } from '../src/data-access/oidc-payload-repository';
import { disableClient } from '../src/domain/client-registration-use-case';
import { decryptPrivateJwk } from '../src/domain/signing-key';
import {
  AUDIENCE,
  REDIRECT_URI,
  startAuthHarness,
  waitFor,
  type AuthHarness,
} from './support/auth-test-harness';
import { Browser } from './support/browser';

let h: AuthHarness;
let producer: Producer;
beforeAll(async () => {
  h = await startAuthHarness();
  const kafka = new Kafka({
    clientId: 'auth-test',
    brokers: h.config.KAFKA_BROKERS,
    logLevel: logLevel.NOTHING,
  });
  producer = kafka.producer();
  await Promise.all([producer.connect(), h.service.waitForConsumers(20_000)]);
});
afterAll(async () => {
  await producer?.disconnect();
  await h?.close();
});

const basic = (id: string, secret: string) => `Basic ${Buffer.from(`${id}:${secret}`).toString('base64')}`;

async function post(path: string, body: Record<string, string>, authorization?: string) {
  const res = await fetch(`${h.issuer}${path}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(authorization ? { authorization } : {}),
    },
    body: new URLSearchParams(body).toString(),
  });
  const text = await res.text();
  return {
    status: res.status,
    headers: res.headers,
    body: (text ? JSON.parse(text) : {}) as Record<string, unknown>,
  };
}

async function serviceClient(scopes = ['orders:read']) {
  const { client: c, clientSecret } = await h.register({
    type: 'service',
    scopes,
    custId: 'ACME',
    login: 'erp',
  });
  const config = await h.discover(c.clientId, clientSecret);
  return { id: c.clientId, secret: clientSecret!, config };
}

/** A shopper's tokens through the real sign-in page. */
async function shopperTokens(login: string, password: string) {
  const { client: c, clientSecret } = await h.register({
    type: 'web',
    firstParty: true,
    scopes: ['openid', 'orders:read'],
  });
  const config = await h.discover(c.clientId, clientSecret);
  const verifier = client.randomPKCECodeVerifier();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: REDIRECT_URI,
    scope: 'openid orders:read',
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
  });
  const browser = new Browser(REDIRECT_URI);
  const page = await browser.open(url.href);
  const callback = await browser.submit(page, '/login', { login, password });
  const tokens = await client.authorizationCodeGrant(config, new URL(callback.url), {
    pkceCodeVerifier: verifier,
  });
  return { tokens, config, id: c.clientId, secret: clientSecret! };
}

/**
 * The gateway refuses `token` from now on: `revoked:jti:<jti>` is in Redis until a minute past the
 * token's expiry (the verifiers' clock tolerance), and no `revoked:grant:` key is written any more.
 */
async function expectDeniedAtGateway(token: string) {
  const { jti, exp } = decodeJwt(token);
  const key = `${h.config.REDIS_KEY_PREFIX}revoked:jti:${jti}`;
  expect(await h.redis.exists(key)).toBe(1);
  const ttl = await h.redis.ttl(key);
  expect(ttl).toBeGreaterThan(exp! + 60 - Math.floor(Date.now() / 1000) - 5);
  expect(ttl).toBeLessThanOrEqual(exp! + 60 - Math.floor(Date.now() / 1000) + 1);
  expect(await h.redis.keys(`${h.config.REDIS_KEY_PREFIX}revoked:grant:*`)).toEqual([]);
}

describe('introspection (RFC 7662)', () => {
  it('answers active with the claims for a valid access token', async () => {
    const c = await serviceClient();
    const { access_token } = await client.clientCredentialsGrant(c.config, { scope: 'orders:read' });
    const info = await client.tokenIntrospection(c.config, access_token);
    expect(info).toMatchObject({
      active: true,
      client_id: c.id,
      scope: 'orders:read',
      sub: 'shopper:acme:erp',
      aud: AUDIENCE,
      iss: h.issuer,
      token_type: 'Bearer',
      cust_id: 'ACME',
      login: 'erp',
    });
  });

  it('answers active false for an expired token signed with our own key', async () => {
    const c = await serviceClient();
    const row = (await h.db.knex('signing_keys').where({ status: 'active' }).first()) as {
      kid: string;
      private_jwk_encrypted: string;
    };
    const jwk = decryptPrivateJwk(
      row.private_jwk_encrypted,
      decodeKey(h.config.KEY_ENCRYPTION_KEY)!,
      row.kid,
    );
    const now = Math.floor(Date.now() / 1000);
    const expired = await new SignJWT({
      scope: 'orders:read',
      client_id: c.id,
      cust_id: 'ACME',
      login: 'erp',
    })
      .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt', kid: row.kid })
      .setIssuer(h.issuer)
      .setAudience(AUDIENCE)
      .setSubject('shopper:acme:erp')
      .setJti(randomUUID())
      .setIssuedAt(now - 7200)
      .setExpirationTime(now - 3600)
      .sign(await importJWK(jwk as never, 'RS256'));
    expect((await client.tokenIntrospection(c.config, expired)).active).toBe(false);
  });

  it('answers active false for a token signed by another key', async () => {
    const c = await serviceClient();
    const { generateKeyPair } = await import('jose');
    const { privateKey } = await generateKeyPair('RS256');
    const forged = await new SignJWT({ scope: 'orders:read', client_id: c.id, cust_id: 'ACME', login: 'erp' })
      .setProtectedHeader({ alg: 'RS256', typ: 'at+jwt' })
      .setIssuer(h.issuer)
      .setAudience(AUDIENCE)
      .setSubject('shopper:acme:erp')
      .setJti(randomUUID())
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(privateKey);
    expect((await client.tokenIntrospection(c.config, forged)).active).toBe(false);
  });

  it('refuses a caller with a wrong secret with 401 invalid_client', async () => {
    const c = await serviceClient();
    const { access_token } = await client.clientCredentialsGrant(c.config, { scope: 'orders:read' });
    const res = await post('/oauth/introspect', { token: access_token }, basic(c.id, 'cs_wrong'));
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic /);
  });

  it('answers a caller without any client authentication with 401 invalid_client and a Basic challenge', async () => {
    const c = await serviceClient();
    const { access_token } = await client.clientCredentialsGrant(c.config, { scope: 'orders:read' });
    // A JWT access token (answered by this service) and anything else (answered by the provider).
    const tokens = { jwt: access_token, other: 'not-a-jwt' };
    for (const path of ['/oauth/introspect', '/oauth/revoke']) {
      for (const [kind, token] of Object.entries(tokens)) {
        const res = await post(path, { token });
        expect({ path, kind, status: res.status }).toEqual({ path, kind, status: 401 });
        expect(res.body).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
        expect(res.headers.get('www-authenticate')).toBe(`Basic realm="${h.issuer}"`);
      }
    }
    expect((await client.tokenIntrospection(c.config, access_token)).active).toBe(true);
  });

  it('is not open to public clients', async () => {
    const c = await serviceClient();
    const { access_token } = await client.clientCredentialsGrant(c.config, { scope: 'orders:read' });
    const { client: native } = await h.register({ type: 'native', scopes: ['openid'] });
    const res = await post('/oauth/introspect', { token: access_token, client_id: native.clientId });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
  });

  it('answers for refresh tokens too', async () => {
    h.customers.add({ login: 'rita', password: 'rita-password', cust_id: 'ACME' });
    const s = await shopperTokens('rita', 'rita-password');
    const info = await client.tokenIntrospection(s.config, s.tokens.refresh_token!);
    expect(info).toMatchObject({ active: true, client_id: s.id, sub: 'shopper:acme:rita' });
    expect(info.scope?.split(' ').sort()).toEqual(['openid', 'orders:read']);
    // Refresh tokens live 30 days.
    expect(Number(info.exp) - Number(info.iat)).toBe(30 * 24 * 3600);
  });

  it("says when a rotated refresh token really ends: its grant's end, 30 days after the sign-in", async () => {
    h.customers.add({ login: 'rosa', password: 'rosa-password', cust_id: 'ACME' });
    const s = await shopperTokens('rosa', 'rosa-password');
    const first = await client.tokenIntrospection(s.config, s.tokens.refresh_token!);
    await new Promise((resolve) => setTimeout(resolve, 1100)); // into the next second
    const refreshed = await client.refreshTokenGrant(s.config, s.tokens.refresh_token!);
    const rotated = await client.tokenIntrospection(s.config, refreshed.refresh_token!);
    expect(rotated.active).toBe(true);
    // Not a fresh 30 days: the grant, and with it every refresh token of it, ends where it did.
    expect(rotated.exp).toBe(first.exp);
    expect(Number(rotated.iat)).toBeGreaterThan(Number(first.iat));
  });

  it('answers active false to a client of another account for a refresh token, as for an access token', async () => {
    h.customers.add({ login: 'rory', password: 'rory-password', cust_id: 'ACME' });
    const s = await shopperTokens('rory', 'rory-password');
    const { client: sameAccount, clientSecret: sameSecret } = await h.register({
      type: 'service',
      scopes: ['orders:read'],
    });
    const { client: foreign, clientSecret: foreignSecret } = await h.register({
      type: 'service',
      scopes: ['orders:read'],
      custId: 'GLOBEX',
    });
    const tokens = { access: s.tokens.access_token, refresh: s.tokens.refresh_token! };
    for (const [kind, token] of Object.entries(tokens)) {
      const fromForeign = await post('/oauth/introspect', { token }, basic(foreign.clientId, foreignSecret!));
      // Nothing about the token (not even that it is live) for a client of another account.
      expect({ kind, status: fromForeign.status, ...fromForeign.body }).toEqual({
        kind,
        status: 200,
        active: false,
      });
      const fromSame = await post('/oauth/introspect', { token }, basic(sameAccount.clientId, sameSecret!));
      expect(fromSame.body).toMatchObject({ active: true, client_id: s.id, sub: 'shopper:acme:rory' });
    }
  });
});

describe('revocation (RFC 7009)', () => {
  it('revokes an access token: introspection says inactive and the gateway denylist has its jti', async () => {
    const c = await serviceClient();
    const { access_token } = await client.clientCredentialsGrant(c.config, { scope: 'orders:read' });
    const jti = (
      JSON.parse(Buffer.from(access_token.split('.')[1]!, 'base64url').toString()) as { jti: string }
    ).jti;
    await client.tokenRevocation(c.config, access_token);
    const key = `${h.config.REDIS_KEY_PREFIX}revoked:jti:${jti}`;
    expect(await h.redis.exists(key)).toBe(1);
    const ttl = await h.redis.ttl(key);
    // The token's remaining lifetime plus a minute for verifiers' clock tolerance.
    expect(ttl).toBeGreaterThan(3600);
    expect(ttl).toBeLessThanOrEqual(3660);
    expect((await client.tokenIntrospection(c.config, access_token)).active).toBe(false);
    // Announced on TOPICS.auth through the outbox.
    await waitFor(
      async () => {
        const row = (await h.db
          .knex('outbox')
          .where({ event_id: `token.revoked:${jti}` })
          .first()) as { published_at: Date | null; topic: string } | undefined;
        return row !== undefined && row.published_at !== null && row.topic === TOPICS.auth;
      },
      10_000,
      'token.revoked published',
    );
  });

  it("ignores a request to revoke another client's token (200, token still active)", async () => {
    const owner = await serviceClient();
    const other = await serviceClient();
    const { access_token } = await client.clientCredentialsGrant(owner.config, { scope: 'orders:read' });
    const res = await post('/oauth/revoke', { token: access_token }, basic(other.id, other.secret));
    expect(res.status).toBe(200);
    expect((await client.tokenIntrospection(owner.config, access_token)).active).toBe(true);
  });

  it("ignores a request to revoke another client's refresh token the same way (200, grant untouched)", async () => {
    h.customers.add({ login: 'rhea', password: 'rhea-password', cust_id: 'ACME' });
    const s = await shopperTokens('rhea', 'rhea-password');
    const other = await serviceClient();
    const res = await post(
      '/oauth/revoke',
      { token: s.tokens.refresh_token! },
      basic(other.id, other.secret),
    );
    // As for an access token: nothing tells the caller whether the token exists.
    expect({ status: res.status, body: res.body }).toEqual({ status: 200, body: {} });
    expect((await client.tokenIntrospection(s.config, s.tokens.refresh_token!)).active).toBe(true);
    expect((await client.tokenIntrospection(s.config, s.tokens.access_token)).active).toBe(true);
  });

  it('revokes a refresh token and with it the grant: refresh fails and its access tokens are denied', async () => {
    h.customers.add({ login: 'sam', password: 'sam-password', cust_id: 'ACME' });
    const s = await shopperTokens('sam', 'sam-password');
    // A second access token of the same grant, by refresh.
    const refreshed = await client.refreshTokenGrant(s.config, s.tokens.refresh_token!);
    await client.tokenRevocation(s.config, refreshed.refresh_token!);
    // Every access token of the grant is denied at the gateway (by jti) from the moment the
    // revocation was answered.
    await expectDeniedAtGateway(s.tokens.access_token);
    await expectDeniedAtGateway(refreshed.access_token);
    expect((await client.tokenIntrospection(s.config, refreshed.access_token)).active).toBe(false);
    expect((await client.tokenIntrospection(s.config, refreshed.refresh_token!)).active).toBe(false);
    expect((await client.tokenIntrospection(s.config, s.tokens.access_token)).active).toBe(false);
    const refresh = await post(
      '/oauth/token',
      { grant_type: 'refresh_token', refresh_token: refreshed.refresh_token! },
      basic(s.id, s.secret),
    );
    expect(refresh.body.error).toBe('invalid_grant');
  });
});

describe('a disabled client', () => {
  it('loses its grants: refresh fails, its shopper tokens are denied at the gateway and inactive', async () => {
    h.customers.add({ login: 'dan', password: 'dan-password', cust_id: 'ACME' });
    const s = await shopperTokens('dan', 'dan-password');
    const observer = await serviceClient();
    expect((await client.tokenIntrospection(observer.config, s.tokens.access_token)).active).toBe(true);

    const result = await disableClient(
      {
        clients: new ClientRepository(h.db.knex),
        secretKey: h.config.CLIENT_SECRET_KEY,
        now: () => new Date(),
        deleteGrantsOfClient: (id) => deleteGrantsOfClient(h.db.knex, id),
        revocation: h.service.parts.revocation,
      },
      s.id,
    );
    expect(result.revokedGrants).toBe(1);
    await expectDeniedAtGateway(s.tokens.access_token);
    expect((await client.tokenIntrospection(observer.config, s.tokens.access_token)).active).toBe(false);
    const refresh = await post(
      '/oauth/token',
      { grant_type: 'refresh_token', refresh_token: s.tokens.refresh_token! },
      basic(s.id, s.secret),
    );
    expect(refresh.status).toBe(401);
    expect(refresh.body.error).toBe('invalid_client');
  });
});

describe('a deactivated shopper', () => {
  it('has every token revoked when user.deactivated arrives, and can no longer refresh', async () => {
    const user = h.customers.add({
      login: `dora-${randomUUID().slice(0, 8)}`,
      password: 'dora-password',
      cust_id: 'ACME',
    });
    const s = await shopperTokens(user.login, 'dora-password');
    expect((await client.tokenIntrospection(s.config, s.tokens.access_token)).active).toBe(true);

    h.customers.deactivate(user.login);
    const event = newEvent({
      type: 'user.deactivated',
      cust_id: 'ACME',
      data: { ...user, roles: ['shopper'], status: 'deactivated', deactivated_at: new Date().toISOString() },
    });
    await producer.send({
      topic: TOPICS.users,
      messages: [{ key: user.login, value: JSON.stringify(event) }],
    });

    const sub = `shopper:acme:${user.login}`;
    // Behaviour, not timing: the bound (within 5 s on a quiet machine) is a documented property; a
    // loaded CI machine running two test workers beside the broker may take longer.
    await waitFor(
      async () => (await h.redis.exists(`${h.config.REDIS_KEY_PREFIX}revoked:sub:${sub}`)) === 1,
      20_000,
      'subject denylisted',
    );
    const mark = Number(await h.redis.get(`${h.config.REDIS_KEY_PREFIX}revoked:sub:${sub}`));
    const iat = (
      JSON.parse(Buffer.from(s.tokens.access_token.split('.')[1]!, 'base64url').toString()) as { iat: number }
    ).iat;
    expect(mark).toBeGreaterThanOrEqual(iat);
    expect((await client.tokenIntrospection(s.config, s.tokens.access_token)).active).toBe(false);
    expect((await client.tokenIntrospection(s.config, s.tokens.refresh_token!)).active).toBe(false);
    // Its grant went too, and with it a denylist entry for the token's jti.
    await expectDeniedAtGateway(s.tokens.access_token);
    const refresh = await post(
      '/oauth/token',
      { grant_type: 'refresh_token', refresh_token: s.tokens.refresh_token! },
      basic(s.id, s.secret),
    );
    expect(refresh.body.error).toBe('invalid_grant');
  });
});
