import * as client from 'openid-client';
import { createLocalJWKSet, decodeProtectedHeader, jwtVerify, type JSONWebKeySet } from 'jose';
import { KeyCheckRepository } from '../src/data-access/key-check-repository';
import { recordClientSecretKey } from '../src/domain/client-secret';
import { authCli } from '../src/entry-points/cli/auth-cli';
import { AUDIENCE, startAuthHarness, type AuthHarness } from './support/auth-test-harness';

let h: AuthHarness;
beforeAll(async () => {
  h = await startAuthHarness();
});
afterAll(async () => {
  await h?.close();
});

/** Runs `ops auth ...` against the service's database; returns the printed JSON. */
async function ops(...args: string[]): Promise<unknown> {
  return opsWith({}, ...args);
}

/** The same with some of the service's settings replaced (`env`). */
async function opsWith(env: NodeJS.ProcessEnv, ...args: string[]): Promise<unknown> {
  const printed: string[] = [];
  const cli = authCli({
    env: {
      DATABASE_URL: h.db.url,
      CLIENT_SECRET_KEY: h.config.CLIENT_SECRET_KEY,
      KEY_ENCRYPTION_KEY: h.config.KEY_ENCRYPTION_KEY,
      REDIS_URL: h.config.REDIS_URL,
      REDIS_KEY_PREFIX: h.config.REDIS_KEY_PREFIX,
      ...env,
    },
    out: (text) => printed.push(text),
  });
  cli.exitOverride();
  cli.configureOutput({ writeErr: () => {}, writeOut: () => {} });
  await cli.parseAsync(['node', 'auth', ...args]);
  return JSON.parse(printed.join('\n'));
}

/** `ops auth clients register` of an ERP integration (`scopes`, default orders:read) of `custId`, login erp. */
const registerErp = (custId: string, scopes = 'orders:read') => [
  'clients',
  'register',
  '--name',
  'ERP',
  '--type',
  'service',
  '--scopes',
  scopes,
  '--cust-id',
  custId,
  '--login',
  'erp',
];

async function jwks(): Promise<JSONWebKeySet> {
  return (await (await fetch(`${h.issuer}/oauth/jwks.json`)).json()) as JSONWebKeySet;
}

async function verifyWithPublishedKeys(token: string) {
  return jwtVerify(token, createLocalJWKSet(await jwks()), {
    issuer: h.issuer,
    audience: AUDIENCE,
    algorithms: ['RS256'],
  });
}

describe('operator CLI: clients', () => {
  it('registers a client whose secret is shown once and works at the token endpoint', async () => {
    const out = (await ops(...registerErp('GLOBEX', 'orders:read,catalog:read'))) as {
      client_id: string;
      client_secret: string;
    };
    expect(out.client_secret).toMatch(/^cs_/);
    const config = await h.discover(out.client_id, out.client_secret);
    const tokens = await client.clientCredentialsGrant(config, { scope: 'catalog:read' });
    expect((await verifyWithPublishedKeys(tokens.access_token)).payload).toMatchObject({
      cust_id: 'GLOBEX',
      login: 'erp',
      sub: 'shopper:globex:erp',
    });

    const listed = (await ops('clients', 'list')) as Record<string, unknown>[];
    expect(JSON.stringify(listed)).not.toContain(out.client_secret);
    expect(listed.find((c) => c.client_id === out.client_id)).toMatchObject({
      status: 'active',
      type: 'service',
    });
  });

  it("refuses to make a secret with another CLIENT_SECRET_KEY than the service's (it would not work), changing nothing", async () => {
    const reg = (await ops(...registerErp('ACME'))) as { client_id: string; client_secret: string };
    // A checkout run against this database without the service's key: the local default, say.
    const otherKey = { CLIENT_SECRET_KEY: 'local-dev-client-secret-hmac-key-change-me' };
    expect(otherKey.CLIENT_SECRET_KEY).not.toBe(h.config.CLIENT_SECRET_KEY);
    const before = (await ops('clients', 'list')) as unknown[];
    await expect(opsWith(otherKey, ...registerErp('GLOBEX'))).rejects.toThrow(
      /CLIENT_SECRET_KEY is not the one the auth service uses with this database/,
    );
    await expect(opsWith(otherKey, 'clients', 'rotate-secret', reg.client_id)).rejects.toThrow(
      /nothing was changed/,
    );
    expect(await ops('clients', 'list')).toEqual(before);
    // The secret made before still works.
    const config = await h.discover(reg.client_id, reg.client_secret);
    expect((await client.clientCredentialsGrant(config, { scope: 'orders:read' })).access_token).toBeTruthy();
  });

  it('the service records the key it verifies with at start; another key replacing it is reported', async () => {
    const checks = new KeyCheckRepository(h.db.knex);
    const now = new Date();
    expect(await recordClientSecretKey(checks, h.config.CLIENT_SECRET_KEY, now)).toBe(false);
    expect(await recordClientSecretKey(checks, 'another-client-secret-key-of-32-chars', now)).toBe(true);
    expect(await recordClientSecretKey(checks, h.config.CLIENT_SECRET_KEY, now)).toBe(true);
  });

  it('rotates a secret (old one refused) and disables a client', async () => {
    const reg = (await ops(...registerErp('ACME'))) as { client_id: string; client_secret: string };
    const rotated = (await ops('clients', 'rotate-secret', reg.client_id)) as { client_secret: string };
    expect(rotated.client_secret).not.toBe(reg.client_secret);
    await expect(
      client.clientCredentialsGrant(await h.discover(reg.client_id, reg.client_secret), {
        scope: 'orders:read',
      }),
    ).rejects.toMatchObject({ status: 401 });
    const config = await h.discover(reg.client_id, rotated.client_secret);
    await expect(client.clientCredentialsGrant(config, { scope: 'orders:read' })).resolves.toBeDefined();

    const issued = await client.clientCredentialsGrant(config, { scope: 'orders:read' });
    const auditor = (await ops(
      'clients',
      'register',
      '--name',
      'Audit',
      '--type',
      'service',
      '--scopes',
      'orders:read',
      '--cust-id',
      'ACME',
      '--login',
      'audit',
    )) as {
      client_id: string;
      client_secret: string;
    };
    const auditConfig = await h.discover(auditor.client_id, auditor.client_secret);
    expect((await client.tokenIntrospection(auditConfig, issued.access_token)).active).toBe(true);

    expect(await ops('clients', 'disable', reg.client_id)).toEqual({
      client_id: reg.client_id,
      status: 'disabled',
      revoked_grants: 0,
    });
    await expect(client.clientCredentialsGrant(config, { scope: 'orders:read' })).rejects.toMatchObject({
      status: 401,
    });
    // Its tokens are no longer active.
    expect((await client.tokenIntrospection(auditConfig, issued.access_token)).active).toBe(false);
  });

  it('registers a web client with redirect URIs, and refuses an unknown scope', async () => {
    const web = (await ops(
      'clients',
      'register',
      '--name',
      'Web',
      '--type',
      'web',
      '--first-party',
      '--scopes',
      'openid profile orders:read',
      '--cust-id',
      'ACME',
      '--login',
      'web',
      '--redirect-uri',
      'http://127.0.0.1:8976/callback',
    )) as Record<string, unknown>;
    expect(web).toMatchObject({
      type: 'web',
      first_party: true,
      redirect_uris: ['http://127.0.0.1:8976/callback'],
    });
    await expect(
      ops(
        'clients',
        'register',
        '--name',
        'X',
        '--type',
        'service',
        '--scopes',
        'pizza:eat',
        '--cust-id',
        'ACME',
        '--login',
        'x',
      ),
    ).rejects.toThrow(/unknown scope pizza:eat/);
    await expect(
      ops(
        'clients',
        'register',
        '--name',
        'X',
        '--type',
        'web',
        '--scopes',
        'openid',
        '--cust-id',
        'ACME',
        '--login',
        'x',
        '--redirect-uri',
        'http://evil.example/cb',
      ),
    ).rejects.toThrow(/https/);
  });
});

describe('signing keys', () => {
  it('are generated on first start and kept encrypted at rest', async () => {
    const rows = (await h.db.knex('signing_keys').select('*')) as Record<string, unknown>[];
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'active', alg: 'RS256' });
    expect(String(rows[0]!.private_jwk_encrypted)).toMatch(/^v1\./);
    expect(String(rows[0]!.private_jwk_encrypted)).not.toMatch(/"d"|"p"|"q"/);
    expect(Object.keys(rows[0]!.public_jwk as object).sort()).toEqual(['alg', 'e', 'kid', 'kty', 'n', 'use']);
    const published = await jwks();
    expect(published.keys).toHaveLength(1);
    expect(published.keys[0]).not.toHaveProperty('d');
  });

  it('rotate: new tokens use the new key while tokens of the old one keep verifying during the overlap', async () => {
    const reg = (await ops(...registerErp('ACME'))) as { client_id: string; client_secret: string };
    const config = await h.discover(reg.client_id, reg.client_secret);
    const before = await client.clientCredentialsGrant(config, { scope: 'orders:read' });
    const oldKid = decodeProtectedHeader(before.access_token).kid;

    const rotated = (await ops('keys', 'rotate')) as { kid: string; previous_key_published_until: string };
    expect(rotated.kid).not.toBe(oldKid);
    expect(Date.parse(rotated.previous_key_published_until) - Date.now()).toBeGreaterThan(3600 * 1000);
    expect(await h.service.reloadKeys()).toBe(true);

    const kids = (await jwks()).keys.map((k) => k.kid);
    expect(kids).toEqual([rotated.kid, oldKid]);
    const after = await client.clientCredentialsGrant(config, { scope: 'orders:read' });
    expect(decodeProtectedHeader(after.access_token).kid).toBe(rotated.kid);
    await expect(verifyWithPublishedKeys(before.access_token)).resolves.toBeDefined();
    await expect(verifyWithPublishedKeys(after.access_token)).resolves.toBeDefined();
    expect((await client.tokenIntrospection(config, before.access_token)).active).toBe(true);

    // Past the overlap the old key leaves the JWKS.
    await h.db
      .knex('signing_keys')
      .where({ kid: oldKid })
      .update({ publish_until: new Date(Date.now() - 1000) });
    expect(await h.service.reloadKeys()).toBe(true);
    expect((await jwks()).keys.map((k) => k.kid)).toEqual([rotated.kid]);
    expect((await client.tokenIntrospection(config, before.access_token)).active).toBe(false);
    // The default overlap outlives every token of the old key: nothing for the gateways to refuse.
    expect(await h.redis.get(`${h.config.REDIS_KEY_PREFIX}revoked:kid:${oldKid}`)).toBeNull();
  });

  it('rotating a leaked key (overlap 0) has the gateways refuse its tokens at once, whatever JWKS they cached', async () => {
    const previous = (await ops('keys', 'rotate')) as { kid: string };
    const startedAt = Math.floor(Date.now() / 1000);
    const rotated = (await ops('keys', 'rotate', '--overlap-seconds', '0')) as {
      kid: string;
      previous_key_tokens_refused_from: string;
    };
    const mark = `${h.config.REDIS_KEY_PREFIX}revoked:kid:${previous.kid}`;
    const from = Number(await h.redis.get(mark));
    expect(from).toBeGreaterThanOrEqual(startedAt);
    expect(from).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000));
    expect(Math.floor(Date.parse(rotated.previous_key_tokens_refused_from) / 1000)).toBe(from);
    // Kept while a token of the key could still be alive (an hour, and the clock margin), no longer.
    expect(await h.redis.ttl(mark)).toBeGreaterThan(3600);
    expect(await h.redis.ttl(mark)).toBeLessThanOrEqual(3600 + 120);
    expect(await h.redis.get(`${h.config.REDIS_KEY_PREFIX}revoked:kid:${rotated.kid}`)).toBeNull();
  });

  it('a leak rotation also cuts a key retired earlier that is still in its overlap: the key store held it too', async () => {
    const reg = (await ops(...registerErp('ACME'))) as { client_id: string; client_secret: string };
    const config = await h.discover(reg.client_id, reg.client_secret);
    // A routine rotation an hour ago (say): the key before it stays published for 2 h.
    const before = (await ops('keys', 'rotate')) as { kid: string; previous_kids: string[] };
    const [earlier] = before.previous_kids;
    expect(await h.service.reloadKeys()).toBe(true);
    const tokenOfLatest = (await client.clientCredentialsGrant(config, { scope: 'orders:read' }))
      .access_token;
    expect(decodeProtectedHeader(tokenOfLatest).kid).toBe(before.kid);
    expect((await jwks()).keys.map((k) => k.kid)).toContain(earlier);

    const rotated = (await ops('keys', 'rotate', '--overlap-seconds', '0')) as {
      kid: string;
      previous_kids: string[];
    };
    expect([...rotated.previous_kids].sort()).toEqual([before.kid, earlier].sort());
    expect(await h.service.reloadKeys()).toBe(true);
    expect((await jwks()).keys.map((k) => k.kid)).toEqual([rotated.kid]);
    for (const kid of [before.kid, earlier!])
      expect(await h.redis.get(`${h.config.REDIS_KEY_PREFIX}revoked:kid:${kid}`)).not.toBeNull();
    expect((await client.tokenIntrospection(config, tokenOfLatest)).active).toBe(false);
  });

  it('a routine rotation never lengthens the publication of a key retired earlier', async () => {
    const first = (await ops('keys', 'rotate', '--overlap-seconds', '60')) as { previous_kids: string[] };
    const second = (await ops('keys', 'rotate')) as { previous_kids: string[] };
    // Only the key that was active moves to the 2 h overlap; the one cut to 60 s stays cut.
    expect(second.previous_kids).toHaveLength(1);
    expect(second.previous_kids).not.toContain(first.previous_kids[0]);
    const keys = (await ops('keys', 'list')) as { kid: string; publish_until: string | null }[];
    const shortened = keys.find((k) => k.kid === first.previous_kids[0])!;
    expect(Date.parse(shortened.publish_until!) - Date.now()).toBeLessThanOrEqual(60_000);
  });
});
