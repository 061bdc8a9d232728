import * as client from 'openid-client';
import { randomUUID } from 'node:crypto';
import {
  SignJWT,
  createRemoteJWKSet,
  decodeJwt,
  decodeProtectedHeader,
  exportJWK,
  generateKeyPair,
  jwtVerify,
} from 'jose';
import { ClientRepository } from '../src/data-access/client-repository';
import { rotateClientSecret } from '../src/domain/client-registration-use-case';
import { AUDIENCE, startAuthHarness, type AuthHarness } from './support/auth-test-harness';

let h: AuthHarness;
beforeAll(async () => {
  h = await startAuthHarness();
});
afterAll(async () => {
  await h?.close();
});

async function tokenRequest(body: Record<string, string>, auth?: { id: string; secret: string }) {
  const res = await fetch(`${h.issuer}/oauth/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      ...(auth
        ? { authorization: `Basic ${Buffer.from(`${auth.id}:${auth.secret}`).toString('base64')}` }
        : {}),
    },
    body: new URLSearchParams(body).toString(),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
}

describe('discovery', () => {
  it('publishes the endpoints of the spec under /oauth and the issuer as the OAuth host origin', async () => {
    const res = await fetch(`${h.issuer}/.well-known/openid-configuration`);
    expect(res.status).toBe(200);
    const meta = (await res.json()) as Record<string, unknown>;
    expect(meta).toMatchObject({
      issuer: h.issuer,
      authorization_endpoint: `${h.issuer}/oauth/authorize`,
      token_endpoint: `${h.issuer}/oauth/token`,
      introspection_endpoint: `${h.issuer}/oauth/introspect`,
      revocation_endpoint: `${h.issuer}/oauth/revoke`,
      userinfo_endpoint: `${h.issuer}/oauth/userinfo`,
      jwks_uri: `${h.issuer}/oauth/jwks.json`,
      response_types_supported: ['code'],
      code_challenge_methods_supported: ['S256'],
    });
    expect(meta.grant_types_supported).toEqual(
      expect.arrayContaining(['authorization_code', 'client_credentials', 'refresh_token']),
    );
    expect(meta.grant_types_supported).not.toContain('implicit');
    expect(meta.grant_types_supported).not.toContain('password');
    // Only the spec's flows: no pushed authorization requests.
    expect(meta.pushed_authorization_request_endpoint).toBeUndefined();
    // Bearer tokens only: no DPoP (RFC 9449).
    expect(meta.dpop_signing_alg_values_supported).toBeUndefined();
  });

  it('serves the same metadata at the RFC 8414 path, where a plain OAuth 2.0 client looks', async () => {
    const openid = await (await fetch(`${h.issuer}/.well-known/openid-configuration`)).json();
    const res = await fetch(`${h.issuer}/.well-known/oauth-authorization-server`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.json()).toEqual(openid);

    // An OAuth 2.0 client library (not OpenID Connect) discovers the server there and gets a token.
    const { client: c, clientSecret } = await h.register({
      type: 'service',
      scopes: ['orders:read'],
      custId: 'ACME',
      login: 'erp-sync',
    });
    const config = await client.discovery(
      new URL(h.issuer),
      c.clientId,
      { client_secret: clientSecret! },
      client.ClientSecretBasic(clientSecret!),
      { algorithm: 'oauth2', execute: [client.allowInsecureRequests] },
    );
    expect(config.serverMetadata().token_endpoint).toBe(`${h.issuer}/oauth/token`);
    const tokens = await client.clientCredentialsGrant(config, { scope: 'orders:read' });
    expect(tokens.scope).toBe('orders:read');

    const head = await fetch(`${h.issuer}/.well-known/oauth-authorization-server`, { method: 'HEAD' });
    expect(head.status).toBe(200);
    const post = await fetch(`${h.issuer}/.well-known/oauth-authorization-server`, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
  });
});

describe('client credentials', () => {
  it('issues an RS256 JWT with exactly the claims of the spec, for the integration the client acts for', async () => {
    const { client: c, clientSecret } = await h.register({
      type: 'service',
      scopes: ['orders:read', 'catalog:read'],
      custId: 'ACME',
      login: 'erp-sync',
    });
    const config = await h.discover(c.clientId, clientSecret);
    const raw = await tokenRequest(
      { grant_type: 'client_credentials', scope: 'orders:read' },
      { id: c.clientId, secret: clientSecret! },
    );
    expect(raw.status).toBe(200);
    // RFC 6749 5.1: the answer holding tokens must not be cached.
    expect(raw.headers.get('cache-control')).toBe('no-store');
    expect(raw.headers.get('pragma')).toBe('no-cache');
    const tokens = await client.clientCredentialsGrant(config, { scope: 'orders:read catalog:read' });
    expect(tokens.token_type.toLowerCase()).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.refresh_token).toBeUndefined();

    const jwks = createRemoteJWKSet(new URL(`${h.issuer}/oauth/jwks.json`));
    const { payload, protectedHeader } = await jwtVerify(tokens.access_token, jwks, {
      issuer: h.issuer,
      audience: AUDIENCE,
      typ: 'at+jwt',
      algorithms: ['RS256'],
    });
    expect(protectedHeader.alg).toBe('RS256');
    expect(Object.keys(payload).sort()).toEqual(
      ['aud', 'client_id', 'cust_id', 'exp', 'iat', 'iss', 'jti', 'login', 'scope', 'sub'].sort(),
    );
    expect(payload).toMatchObject({
      iss: h.issuer,
      sub: 'shopper:acme:erp-sync',
      aud: AUDIENCE,
      scope: 'orders:read catalog:read',
      client_id: c.clientId,
      cust_id: 'ACME',
      login: 'erp-sync',
    });
    expect(payload.exp! - payload.iat!).toBe(3600);
    expect(typeof payload.jti).toBe('string');
  });

  it('answers token_type Bearer to a request with a DPoP proof: the token is not bound to its key', async () => {
    const { client: c, clientSecret } = await h.register({
      type: 'service',
      scopes: ['orders:read'],
      custId: 'ACME',
      login: 'erp-dpop',
    });
    const { privateKey, publicKey } = await generateKeyPair('ES256');
    const proof = await new SignJWT({
      htm: 'POST',
      htu: `${h.issuer}/oauth/token`,
      jti: randomUUID(),
    })
      .setProtectedHeader({ alg: 'ES256', typ: 'dpop+jwt', jwk: await exportJWK(publicKey) })
      .setIssuedAt()
      .sign(privateKey);
    const res = await fetch(`${h.issuer}/oauth/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${c.clientId}:${clientSecret}`).toString('base64')}`,
        dpop: proof,
      },
      body: 'grant_type=client_credentials&scope=orders%3Aread',
    });
    const body = (await res.json()) as { token_type: string; access_token: string };
    expect(res.status).toBe(200);
    expect(body.token_type).toBe('Bearer');
    expect(decodeJwt(body.access_token).cnf).toBeUndefined();
  });

  it.each([
    ['/oauth/token', 'POST', ['GET', 'PUT', 'DELETE']],
    ['/oauth/introspect', 'POST', ['GET', 'PUT', 'DELETE']],
    ['/oauth/revoke', 'POST', ['GET', 'PUT', 'DELETE']],
    ['/oauth/authorize', 'GET, HEAD', ['POST', 'PUT']],
    ['/oauth/jwks.json', 'GET, HEAD', ['POST', 'DELETE']],
    ['/.well-known/openid-configuration', 'GET, HEAD', ['POST']],
    ['/oauth/userinfo', 'GET, HEAD, POST', ['PUT', 'DELETE']],
  ])(
    'answers a method %s does not take with 405, Allow: %s and an RFC 6749 error body',
    async (path, allow, methods) => {
      for (const method of methods) {
        const res = await fetch(`${h.issuer}${path}`, { method });
        expect(res.status).toBe(405);
        expect(res.headers.get('allow')).toBe(allow);
        expect(res.headers.get('content-type')).toMatch(/^application\/json/);
        expect(await res.json()).toEqual({ error: 'invalid_request', error_description: expect.any(String) });
      }
    },
  );

  it('refuses a wrong secret with 401 invalid_client and a Basic challenge', async () => {
    const { client: c } = await h.register({ type: 'service', scopes: ['orders:read'] });
    const res = await tokenRequest(
      { grant_type: 'client_credentials', scope: 'orders:read' },
      { id: c.clientId, secret: 'cs_wrong' },
    );
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
    expect(typeof res.body.error_description).toBe('string');
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic /);
  });

  it('answers 401 invalid_client with a Basic challenge when the secret came in the form', async () => {
    const { client: c } = await h.register({ type: 'service', scopes: ['orders:read'] });
    const res = await tokenRequest({
      grant_type: 'client_credentials',
      client_id: c.clientId,
      client_secret: 'cs_wrong',
    });
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
    expect(res.headers.get('www-authenticate')).toMatch(/^Basic /);
  });

  it('answers a request without any client authentication with 401 invalid_client and a Basic challenge', async () => {
    const res = await tokenRequest({ grant_type: 'client_credentials', scope: 'orders:read' });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'invalid_client', error_description: expect.any(String) });
    expect(res.headers.get('www-authenticate')).toBe(`Basic realm="${h.issuer}"`);
  });

  it('refuses a grant type the client is not registered for with unauthorized_client', async () => {
    const { client: web, clientSecret } = await h.register({
      type: 'web',
      firstParty: true,
      scopes: ['openid', 'orders:read'],
    });
    const res = await tokenRequest(
      { grant_type: 'client_credentials', scope: 'orders:read' },
      { id: web.clientId, secret: clientSecret! },
    );
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'unauthorized_client', error_description: expect.any(String) });
    expect(res.body.access_token).toBeUndefined();
  });

  it('refuses an unknown scope and a scope the client was not allowed with invalid_scope', async () => {
    const { client: c, clientSecret } = await h.register({ type: 'service', scopes: ['orders:read'] });
    const auth = { id: c.clientId, secret: clientSecret! };
    const unknown = await tokenRequest(
      { grant_type: 'client_credentials', scope: 'orders:read pizza:eat' },
      auth,
    );
    expect(unknown.status).toBe(400);
    expect(unknown.body.error).toBe('invalid_scope');
    const notAllowed = await tokenRequest({ grant_type: 'client_credentials', scope: 'orders:write' }, auth);
    expect(notAllowed.status).toBe(400);
    expect(notAllowed.body.error).toBe('invalid_scope');
  });

  it('refuses the password grant with unsupported_grant_type', async () => {
    const { client: c, clientSecret } = await h.register({ type: 'service', scopes: ['orders:read'] });
    const res = await tokenRequest(
      { grant_type: 'password', username: 'ann', password: 'x', scope: 'orders:read' },
      { id: c.clientId, secret: clientSecret! },
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('unsupported_grant_type');
  });

  it('refuses the implicit grant at the token endpoint with unsupported_grant_type', async () => {
    const { client: c, clientSecret } = await h.register({
      type: 'web',
      firstParty: true,
      scopes: ['openid', 'orders:read'],
    });
    const res = await tokenRequest(
      { grant_type: 'implicit', scope: 'openid orders:read' },
      { id: c.clientId, secret: clientSecret! },
    );
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('unsupported_grant_type');
    expect(res.body.access_token).toBeUndefined();
  });

  it('answers a form body it cannot read with an RFC 6749 invalid_request body, not the API error shape', async () => {
    const { client: c, clientSecret } = await h.register({ type: 'service', scopes: ['orders:read'] });
    const authorization = `Basic ${Buffer.from(`${c.clientId}:${clientSecret!}`).toString('base64')}`;
    const form = 'application/x-www-form-urlencoded';
    const unreadable = [
      { status: 413, contentType: form, body: `grant_type=client_credentials&x=${'a'.repeat(60_000)}` },
      { status: 415, contentType: `${form}; charset=latin1`, body: 'grant_type=client_credentials' },
    ];
    for (const path of ['/oauth/token', '/oauth/introspect', '/oauth/revoke']) {
      for (const { status, contentType, body } of unreadable) {
        const res = await fetch(`${h.issuer}${path}`, {
          method: 'POST',
          headers: { authorization, 'content-type': contentType },
          body,
        });
        const answer = (await res.json()) as Record<string, unknown>;
        expect({ path, status: res.status, error: answer.error }).toEqual({
          path,
          status,
          error: 'invalid_request',
        });
        expect(typeof answer.error_description).toBe('string');
        expect(res.headers.get('cache-control')).toBe('no-store');
      }
    }
  });

  it('stores only the HMAC of a secret, and a rotated secret replaces the old one', async () => {
    const { client: c, clientSecret } = await h.register({ type: 'service', scopes: ['orders:read'] });
    const row = (await h.db.knex('oauth_clients').where({ client_id: c.clientId }).first()) as Record<
      string,
      unknown
    >;
    expect(JSON.stringify(row)).not.toContain(clientSecret!);
    expect(row.secret_hash).toMatch(/^[0-9a-f]{64}$/);

    const { secret: fresh } = await rotateClientSecret(
      {
        clients: new ClientRepository(h.db.knex),
        secretKey: h.config.CLIENT_SECRET_KEY,
        now: () => new Date(),
      },
      c.clientId,
    );
    const old = await tokenRequest(
      { grant_type: 'client_credentials', scope: 'orders:read' },
      { id: c.clientId, secret: clientSecret! },
    );
    expect(old.status).toBe(401);
    const now = await tokenRequest(
      { grant_type: 'client_credentials', scope: 'orders:read' },
      { id: c.clientId, secret: fresh },
    );
    expect(now.status).toBe(200);
    expect(decodeProtectedHeader(String(now.body.access_token)).alg).toBe('RS256');
  });

  it('gives a client that acts for a deactivated user no new token, and one again once they are active', async () => {
    h.customers.add({ login: 'erp-bot', cust_id: 'ACME', email: 'erp-bot@acme.example', password: 'x' });
    const { client: c, clientSecret } = await h.register({
      type: 'service',
      scopes: ['orders:read'],
      custId: 'ACME',
      login: 'erp-bot',
    });
    const auth = { id: c.clientId, secret: clientSecret! };
    const ask = () => tokenRequest({ grant_type: 'client_credentials', scope: 'orders:read' }, auth);
    expect((await ask()).status).toBe(200);

    // As the user.deactivated consumer leaves it: the user deactivated, the subject's cut-off set.
    h.customers.deactivate('erp-bot');
    const mark = `${h.config.REDIS_KEY_PREFIX}revoked:sub:shopper:acme:erp-bot`;
    await h.redis.set(mark, String(Math.floor(Date.now() / 1000)), 'EX', 600);
    const refused = await ask();
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({
      error: 'invalid_grant',
      error_description: 'the user this client acts for is deactivated',
    });

    // Reactivated (SCIM or an operator): the cut-off stays for the old tokens, new ones are issued.
    h.customers.find('erp-bot')!.status = 'active';
    expect((await ask()).status).toBe(200);
  });

  it('issues tokens for an integration login that is no user of the account, whatever the denylist says', async () => {
    const { client: c, clientSecret } = await h.register({
      type: 'service',
      scopes: ['orders:read'],
      custId: 'ACME',
      login: 'no-such-user',
    });
    await h.redis.set(
      `${h.config.REDIS_KEY_PREFIX}revoked:sub:shopper:acme:no-such-user`,
      String(Math.floor(Date.now() / 1000) - 60),
      'EX',
      600,
    );
    const res = await tokenRequest(
      { grant_type: 'client_credentials', scope: 'orders:read' },
      { id: c.clientId, secret: clientSecret! },
    );
    expect(res.status).toBe(200);
  });

  it('refuses a disabled client', async () => {
    const { client: c, clientSecret } = await h.register({ type: 'service', scopes: ['orders:read'] });
    const auth = { id: c.clientId, secret: clientSecret! };
    expect(
      (await tokenRequest({ grant_type: 'client_credentials', scope: 'orders:read' }, auth)).status,
    ).toBe(200);
    await h.db
      .knex('oauth_clients')
      .where({ client_id: c.clientId })
      .update({ status: 'disabled', disabled_at: new Date() });
    const res = await tokenRequest({ grant_type: 'client_credentials', scope: 'orders:read' }, auth);
    expect(res.status).toBe(401);
    expect(res.body.error).toBe('invalid_client');
  });
});
