import * as client from 'openid-client';
import { createRemoteJWKSet, decodeJwt, jwtVerify } from 'jose';
import { AUDIENCE, REDIRECT_URI, startAuthHarness, type AuthHarness } from './support/auth-test-harness';
import { authorizationRequest } from './support/authorization-request';
import { Browser, type Page } from './support/browser';

let h: AuthHarness;
beforeAll(async () => {
  h = await startAuthHarness({ SIGN_IN_MAX_FAILURES: '3' });
  h.customers.add({
    login: 'ann',
    password: 'correct horse',
    cust_id: 'ACME',
    name: 'Ann Smith',
    email: 'ann@acme.test',
  });
});
afterAll(async () => {
  await h?.close();
});

interface Started {
  browser: Browser;
  page: Page;
  verifier: string;
  state: string;
}

/** Starts an authorization request with PKCE and lands on the sign-in page. */
async function startFlow(
  config: client.Configuration,
  scope: string,
  extra: Record<string, string> = {},
): Promise<Started> {
  const { url, verifier, state } = await authorizationRequest(config, {
    redirectUri: REDIRECT_URI,
    scope,
    extra,
  });
  const browser = new Browser(REDIRECT_URI);
  const page = await browser.open(url.href);
  return { browser, page, verifier, state };
}

async function signInAs(started: Started, login: string, password: string): Promise<Page> {
  return started.browser.submit(started.page, '/login', { login, password });
}

async function codeFlow(config: client.Configuration, scope: string) {
  const started = await startFlow(config, scope);
  const callback = await signInAs(started, 'ann', 'correct horse');
  expect(callback.url.startsWith(REDIRECT_URI)).toBe(true);
  const tokens = await client.authorizationCodeGrant(config, new URL(callback.url), {
    pkceCodeVerifier: started.verifier,
    expectedState: started.state,
  });
  return { tokens, callback, started };
}

async function firstPartyWebClient(scopes = ['openid', 'profile', 'email', 'orders:read', 'orders:write']) {
  const { client: c, clientSecret } = await h.register({
    type: 'web',
    firstParty: true,
    scopes,
    name: 'Ordering Web',
  });
  return { id: c.clientId, secret: clientSecret!, config: await h.discover(c.clientId, clientSecret) };
}

async function tokenRequest(body: Record<string, string>, auth: { id: string; secret: string }) {
  const res = await fetch(`${h.issuer}/oauth/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${auth.id}:${auth.secret}`).toString('base64')}`,
    },
    body: new URLSearchParams(body).toString(),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function introspect(token: string, auth: { id: string; secret: string }) {
  const res = await fetch(`${h.issuer}/oauth/introspect`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from(`${auth.id}:${auth.secret}`).toString('base64')}`,
    },
    body: new URLSearchParams({ token }).toString(),
  });
  expect(res.status).toBe(200);
  return (await res.json()) as { active: boolean };
}

describe('sign-in page', () => {
  it('is a server-rendered form with labelled fields and a CSRF token, and no dev interactions', async () => {
    const { config } = await firstPartyWebClient();
    const { page } = await startFlow(config, 'openid orders:read');
    expect(page.status).toBe(200);
    expect(page.url).toMatch(/\/oauth\/interaction\/[^/]+$/);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.html).toMatch(/<html lang="en">/);
    expect(page.html).toMatch(/<label for="login">Login<\/label>/);
    expect(page.html).toMatch(/<input type="text" id="login" name="login"/);
    expect(page.html).toMatch(/<label for="password">Password<\/label>/);
    expect(page.html).toMatch(/<input type="password" id="password" name="password"/);
    expect(page.html).toMatch(/<input type="hidden" name="csrf_token" value="[A-Za-z0-9_-]{20,}">/);
    expect(page.html).not.toMatch(/<script/);
    expect(page.html).not.toMatch(/devInteractions|dev-interactions/i);
  });

  it('refuses a form posted without the CSRF token', async () => {
    const { config } = await firstPartyWebClient();
    const started = await startFlow(config, 'openid');
    const res = await started.browser.submit(started.page, '/login', {
      login: 'ann',
      password: 'correct horse',
      csrf_token: 'forged',
    });
    expect(res.status).toBe(403);
    expect(res.url).toMatch(/\/oauth\/interaction\//);
  });

  it('refuses a wrong password without saying which part was wrong', async () => {
    const { config } = await firstPartyWebClient();
    const started = await startFlow(config, 'openid');
    const res = await signInAs(started, 'ann', 'wrong');
    expect(res.status).toBe(401);
    expect(res.html).toContain('The login or password is not correct.');
    expect(res.html).toMatch(/role="alert"/);
  });

  it('lets no deactivated shopper sign in', async () => {
    h.customers.add({ login: 'gone', password: 'pw-gone-123', cust_id: 'ACME', status: 'deactivated' });
    const { config } = await firstPartyWebClient();
    const started = await startFlow(config, 'openid');
    const res = await signInAs(started, 'gone', 'pw-gone-123');
    expect(res.status).toBe(401);
    expect(res.url.startsWith(REDIRECT_URI)).toBe(false);
  });

  it('slows repeated failures down: after 3 failures from one address even the right password is refused there for a while', async () => {
    h.customers.add({ login: 'bob', password: 'bob-password', cust_id: 'ACME' });
    const { config } = await firstPartyWebClient();
    for (let i = 0; i < 3; i++) {
      const started = await startFlow(config, 'openid');
      expect((await signInAs(started, 'bob', `nope-${i}`)).status).toBe(401);
    }
    const started = await startFlow(config, 'openid');
    const res = await signInAs(started, 'bob', 'bob-password');
    expect(res.status).toBe(429);
    expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(res.html).toMatch(/Too many failed attempts/);
  });
});

describe('sign-in while the customers service is down', () => {
  it('shows a temporary-unavailability page (503), not a JSON error', async () => {
    const { config } = await firstPartyWebClient();
    const started = await startFlow(config, 'openid');
    h.customers.setDown(true);
    try {
      const res = await signInAs(started, 'ann', 'correct horse');
      expect(res.status).toBe(503);
      expect(res.headers.get('content-type')).toMatch(/text\/html/);
      expect(res.html).toMatch(/not possible right now/);
    } finally {
      h.customers.setDown(false);
    }
  });
});

describe('an unknown or expired sign-in', () => {
  it('is an HTML error page, not a JSON API error', async () => {
    const res = await fetch(`${h.issuer}/oauth/interaction/not-a-real-uid`);
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/text\/html/);
    expect(await res.text()).toMatch(/start signing in again/);
  });
});

describe('authorization code flow with PKCE', () => {
  it('signs a shopper in and issues access, refresh and ID tokens with the spec claims', async () => {
    const { id, config } = await firstPartyWebClient();
    const { tokens } = await codeFlow(config, 'openid profile email orders:read');
    expect(tokens.expires_in).toBe(3600);
    expect(tokens.refresh_token).toEqual(expect.any(String));
    expect(tokens.id_token).toEqual(expect.any(String));
    expect(tokens.scope?.split(' ').sort()).toEqual(['email', 'openid', 'orders:read', 'profile']);

    const jwks = createRemoteJWKSet(new URL(`${h.issuer}/oauth/jwks.json`));
    const { payload, protectedHeader } = await jwtVerify(tokens.access_token, jwks, {
      issuer: h.issuer,
      audience: AUDIENCE,
      typ: 'at+jwt',
      algorithms: ['RS256'],
    });
    expect(protectedHeader).toMatchObject({ alg: 'RS256', typ: 'at+jwt' });
    expect(payload).toMatchObject({
      sub: 'shopper:acme:ann',
      cust_id: 'ACME',
      login: 'ann',
      client_id: id,
      aud: AUDIENCE,
      iss: h.issuer,
    });
    // Exactly the claims of the spec's table: no grant id, nothing else.
    expect(Object.keys(payload).sort()).toEqual(
      ['iss', 'sub', 'aud', 'exp', 'iat', 'jti', 'scope', 'client_id', 'cust_id', 'login'].sort(),
    );
    expect(payload.exp! - payload.iat!).toBe(3600);
    expect(payload.scope).toBe(tokens.scope);
    const idToken = await jwtVerify(tokens.id_token!, jwks, {
      issuer: h.issuer,
      audience: id,
      algorithms: ['RS256'],
    });
    expect(idToken.payload.sub).toBe('shopper:acme:ann');
    expect(tokens.claims()?.sub).toBe('shopper:acme:ann');
  });

  it('serves userinfo for an API access token that carries openid, with the claims its scopes allow', async () => {
    const { config } = await firstPartyWebClient();
    const { tokens } = await codeFlow(config, 'openid email orders:read');
    const info = await client.fetchUserInfo(config, tokens.access_token, 'shopper:acme:ann');
    // Nothing here proves a shopper controls the address (admins, integrations and SCIM write it).
    expect(info).toEqual({ sub: 'shopper:acme:ann', email: 'ann@acme.test', email_verified: false });

    const withProfile = await codeFlow(config, 'openid profile');
    const profile = await client.fetchUserInfo(config, withProfile.tokens.access_token, 'shopper:acme:ann');
    expect(profile).toMatchObject({
      sub: 'shopper:acme:ann',
      name: 'Ann Smith',
      department: 'Purchasing',
      cost_center: 'CC-7',
    });
    expect(profile.email).toBeUndefined();
  });

  it('gives a shopper without an e-mail (SCIM allows one) no email claim, in userinfo and the ID token', async () => {
    h.customers.add({
      login: 'noemail',
      password: 'correct horse',
      cust_id: 'ACME',
      name: 'No Email',
      email: '',
    });
    const { config } = await firstPartyWebClient();
    const started = await startFlow(config, 'openid email orders:read');
    const callback = await signInAs(started, 'noemail', 'correct horse');
    const tokens = await client.authorizationCodeGrant(config, new URL(callback.url), {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
    });
    const info = await client.fetchUserInfo(config, tokens.access_token, 'shopper:acme:noemail');
    expect(info).toEqual({ sub: 'shopper:acme:noemail' });
    expect(decodeJwt(tokens.id_token!).email_verified).toBeUndefined();
  });

  it('leaves the profile claims a shopper does not have out of userinfo and the ID token (no nulls)', async () => {
    h.customers.add({
      login: 'noprofile',
      password: 'correct horse',
      cust_id: 'ACME',
      name: 'No Profile',
      employee_id: null,
      department: null,
      cost_center: 'CC-9',
    });
    const { config } = await firstPartyWebClient();
    const started = await startFlow(config, 'openid profile orders:read');
    const callback = await signInAs(started, 'noprofile', 'correct horse');
    const tokens = await client.authorizationCodeGrant(config, new URL(callback.url), {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
    });
    // OpenID Connect Core 5.3.2: a claim without a value is omitted, not null.
    const info = await client.fetchUserInfo(config, tokens.access_token, 'shopper:acme:noprofile');
    expect(info).toEqual({ sub: 'shopper:acme:noprofile', name: 'No Profile', cost_center: 'CC-9' });
    const idToken = decodeJwt(tokens.id_token!);
    expect(idToken).toMatchObject({ name: 'No Profile', cost_center: 'CC-9' });
    expect(Object.keys(idToken)).not.toContain('employee_id');
    expect(Object.keys(idToken)).not.toContain('department');
  });

  it('takes the Bearer scheme of userinfo in any case, as HTTP says (RFC 7235 2.1)', async () => {
    const { config } = await firstPartyWebClient();
    const { tokens } = await codeFlow(config, 'openid orders:read');
    for (const scheme of ['bearer', 'BEARER']) {
      const res = await fetch(`${h.issuer}/oauth/userinfo`, {
        headers: { authorization: `${scheme} ${tokens.access_token}` },
      });
      expect({ scheme, status: res.status }).toEqual({ scheme, status: 200 });
      expect(await res.json()).toEqual({ sub: 'shopper:acme:ann' });
    }
  });

  it('refuses userinfo for a token without openid', async () => {
    const { config } = await firstPartyWebClient();
    const { tokens } = await codeFlow(config, 'orders:read');
    expect(tokens.id_token).toBeUndefined();
    const res = await fetch(`${h.issuer}/oauth/userinfo`, {
      headers: { authorization: `Bearer ${tokens.access_token}` },
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { error: string }).error).toBe('insufficient_scope');
  });

  it('rotates the refresh token on every use; replaying a rotated one revokes the whole grant', async () => {
    const { id, secret, config } = await firstPartyWebClient();
    const { tokens } = await codeFlow(config, 'openid orders:read');
    const first = tokens.refresh_token!;
    const second = await client.refreshTokenGrant(config, first);
    expect(second.refresh_token).toBeDefined();
    expect(second.refresh_token).not.toBe(first);
    // Both access tokens of the grant are alive until the replay.
    const accessTokens = [tokens.access_token, second.access_token];
    for (const token of accessTokens) expect((await introspect(token, { id, secret })).active).toBe(true);

    const replay = await tokenRequest({ grant_type: 'refresh_token', refresh_token: first }, { id, secret });
    expect(replay.status).toBe(400);
    expect(replay.body.error).toBe('invalid_grant');
    // The whole grant is gone: the newest refresh token no longer works either ...
    const newest = await tokenRequest(
      { grant_type: 'refresh_token', refresh_token: second.refresh_token! },
      { id, secret },
    );
    expect(newest.body.error).toBe('invalid_grant');
    // ... and every access token of the grant is on the gateway's denylist by jti (written before
    // the replay was answered), for as long as a verifier could accept it; introspection agrees.
    for (const token of accessTokens) {
      const { jti, exp } = decodeJwt(token);
      const key = `${h.config.REDIS_KEY_PREFIX}revoked:jti:${jti}`;
      expect(await h.redis.exists(key)).toBe(1);
      const ttl = await h.redis.ttl(key);
      // Until a minute past its expiry: verifiers tolerate a little clock skew on exp.
      expect(ttl).toBeLessThanOrEqual(exp! + 60 - Math.floor(Date.now() / 1000) + 1);
      expect(ttl).toBeGreaterThan(exp! + 60 - Math.floor(Date.now() / 1000) - 5);
      expect((await introspect(token, { id, secret })).active).toBe(false);
    }
    // The grant key the gateway used to read is no longer written.
    expect(await h.redis.keys(`${h.config.REDIS_KEY_PREFIX}revoked:grant:*`)).toEqual([]);
  });

  /**
   * Two uses of one single-use value at once: at most one of them gets tokens, every other is
   * `invalid_grant`. Which one wins, and whether the winner still gets its tokens once the replay
   * has revoked the grant, is a race (under load both can be refused; both outcomes are safe).
   * Returns the tokens issued, if any.
   */
  function expectAtMostOneIssued(answers: { status: number; body: Record<string, unknown> }[]) {
    const issued = answers.filter((a) => a.status === 200);
    expect(issued.length).toBeLessThanOrEqual(1);
    for (const refused of answers.filter((a) => a.status !== 200)) {
      expect(refused).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    }
    return issued[0]?.body;
  }

  /**
   * Runs two token requests that present the same single-use value (a refresh token or an
   * authorization code) so that both have read it before either marks it used: a lock held on its
   * row lets both read, and holds both at the write until both are waiting there.
   */
  async function presentTwiceAtOnce(tokenId: string, request: () => ReturnType<typeof tokenRequest>) {
    const lockWaiters = async () => {
      const { rows } = await h.db.knex.raw<{ rows: { n: number }[] }>(
        `select count(*)::int as n from pg_stat_activity where datname = ? and wait_event_type = 'Lock'`,
        [h.db.name],
      );
      return rows[0]!.n;
    };
    let release!: () => void;
    let held!: () => void;
    const holding = new Promise<void>((resolve) => (held = resolve));
    const blocker = h.db.knex.transaction(async (trx) => {
      await trx('oidc_payloads').where({ id: tokenId }).forUpdate().first();
      held();
      await new Promise<void>((resolve) => (release = resolve));
    });
    await holding;
    try {
      let answered = 0;
      const requests = [request(), request()].map((r) => r.finally(() => answered++));
      const deadline = Date.now() + 10_000;
      while (answered < 2 && (await lockWaiters()) < 2 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      release();
      await blocker;
      return await Promise.all(requests);
    } finally {
      release?.();
      await blocker.catch(() => {});
    }
  }

  it('a refresh token presented twice at once issues new tokens at most once, and the replay revokes the grant', async () => {
    const { id, secret, config } = await firstPartyWebClient();
    const { tokens } = await codeFlow(config, 'openid orders:read');
    const refresh = tokens.refresh_token!;
    const answers = await presentTwiceAtOnce(refresh, () =>
      tokenRequest({ grant_type: 'refresh_token', refresh_token: refresh }, { id, secret }),
    );
    const issued = expectAtMostOneIssued(answers);
    // As for a replay after the fact: the grant is gone, the refresh token just issued with it too.
    if (issued) {
      const next = await tokenRequest(
        { grant_type: 'refresh_token', refresh_token: String(issued.refresh_token) },
        { id, secret },
      );
      expect(next.body.error).toBe('invalid_grant');
      expect((await introspect(String(issued.access_token), { id, secret })).active).toBe(false);
    }
    expect((await introspect(tokens.access_token, { id, secret })).active).toBe(false);
    expect(
      (await tokenRequest({ grant_type: 'refresh_token', refresh_token: refresh }, { id, secret })).body
        .error,
    ).toBe('invalid_grant');
  });

  it('an authorization code redeemed twice at once issues tokens at most once, and the replay revokes them', async () => {
    const { id, secret, config } = await firstPartyWebClient();
    const started = await startFlow(config, 'openid orders:read');
    const callback = await signInAs(started, 'ann', 'correct horse');
    const code = new URL(callback.url).searchParams.get('code')!;
    const answers = await presentTwiceAtOnce(code, () =>
      tokenRequest(
        {
          grant_type: 'authorization_code',
          code,
          redirect_uri: REDIRECT_URI,
          code_verifier: started.verifier,
        },
        { id, secret },
      ),
    );
    const issued = expectAtMostOneIssued(answers);
    // The replay revokes what the code gave (RFC 6749 section 4.1.2): tokens issued at once die too.
    if (issued) {
      expect((await introspect(String(issued.access_token), { id, secret })).active).toBe(false);
      const next = await tokenRequest(
        { grant_type: 'refresh_token', refresh_token: String(issued.refresh_token) },
        { id, secret },
      );
      expect(next.body.error).toBe('invalid_grant');
    }
  });

  it("bounds a refreshed token by the user's roles at refresh time: a demoted admin loses admin scopes", async () => {
    const { config } = await firstPartyWebClient(['openid', 'orders:read', 'users:read', 'admin:all']);
    const record = h.customers.add({
      login: 'ada',
      password: 'ada-password-1',
      cust_id: 'ACME',
      roles: ['admin'],
    });
    const started = await startFlow(config, 'openid orders:read users:read admin:all');
    const callback = await started.browser.submit(started.page, '/login', {
      login: 'ada',
      password: 'ada-password-1',
    });
    const tokens = await client.authorizationCodeGrant(config, new URL(callback.url), {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
    });
    expect(tokens.scope?.split(' ').sort()).toEqual(['admin:all', 'openid', 'orders:read', 'users:read']);

    // The customers service now says ada is a plain shopper (an admin took the role away).
    record.roles = ['shopper'];
    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(String(decodeJwt(refreshed.access_token).scope).split(' ').sort()).toEqual([
      'openid',
      'orders:read',
    ]);
  });

  it('leaves a requested scope the client may not use out of the grant instead of refusing the request', async () => {
    // An admin, so that only the client's allowed scopes bound the grant, not the user's roles.
    h.customers.add({ login: 'adam', password: 'adam-password-1', cust_id: 'ACME', roles: ['admin'] });
    const { config } = await firstPartyWebClient(['openid', 'orders:read']);
    const started = await startFlow(config, 'openid orders:read admin:all pizza:eat');
    expect(started.page.status).toBe(200);
    const callback = await started.browser.submit(started.page, '/login', {
      login: 'adam',
      password: 'adam-password-1',
    });
    const back = new URL(callback.url);
    expect(back.searchParams.get('error')).toBeNull();
    const tokens = await client.authorizationCodeGrant(config, back, {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
    });
    expect(tokens.scope).toBe('openid orders:read');
    expect(decodeJwt(tokens.access_token).scope).toBe('openid orders:read');
  });

  it('refuses an authorization request with invalid_scope when none of its scopes is allowed for the client', async () => {
    const { config } = await firstPartyWebClient(['openid', 'orders:read']);
    const started = await startFlow(config, 'admin:all users:read');
    const back = new URL(started.page.url);
    expect(back.href.startsWith(REDIRECT_URI)).toBe(true);
    expect(back.searchParams.get('error')).toBe('invalid_scope');
  });

  it('refuses an authorization request without scope with invalid_scope, before anyone signs in (RFC 6749 3.3)', async () => {
    const { config } = await firstPartyWebClient();
    for (const scope of [undefined, '']) {
      const verifier = client.randomPKCECodeVerifier();
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: REDIRECT_URI,
        state: 'no-scope',
        code_challenge: await client.calculatePKCECodeChallenge(verifier),
        code_challenge_method: 'S256',
        ...(scope === undefined ? {} : { scope }),
      });
      const page = await new Browser(REDIRECT_URI).open(url.href);
      const back = new URL(page.url);
      expect({ scope, at: back.origin + back.pathname }).toEqual({ scope, at: REDIRECT_URI });
      expect(back.searchParams.get('error')).toBe('invalid_scope');
      expect(back.searchParams.get('state')).toBe('no-scope');
      expect(back.searchParams.has('scope')).toBe(false);
    }
  });

  it('lists offline_access in the granted scope when it was asked for and allowed, and keeps it on refresh', async () => {
    const { config } = await firstPartyWebClient(['openid', 'offline_access', 'orders:read']);
    const { tokens } = await codeFlow(config, 'openid offline_access orders:read');
    expect(tokens.scope?.split(' ').sort()).toEqual(['offline_access', 'openid', 'orders:read']);
    expect(String(decodeJwt(tokens.access_token).scope).split(' ').sort()).toEqual([
      'offline_access',
      'openid',
      'orders:read',
    ]);
    expect(tokens.refresh_token).toEqual(expect.any(String));

    const refreshed = await client.refreshTokenGrant(config, tokens.refresh_token!);
    expect(refreshed.scope?.split(' ').sort()).toEqual(['offline_access', 'openid', 'orders:read']);
    expect(decodeJwt(refreshed.access_token).scope).toBe(decodeJwt(tokens.access_token).scope);
    expect(refreshed.refresh_token).toEqual(expect.any(String));

    // Not asked for: not listed, and a refresh token all the same.
    const without = await codeFlow(config, 'openid orders:read');
    expect(without.tokens.scope?.split(' ').sort()).toEqual(['openid', 'orders:read']);
    expect(without.tokens.refresh_token).toEqual(expect.any(String));
  });

  it('hands out no access token under a grant whose revocation raced ahead of its deletion', async () => {
    const { id, secret, config } = await firstPartyWebClient();
    const { tokens } = await codeFlow(config, 'openid orders:read');
    const grant = (await h.db
      .knex('oidc_payloads')
      .where({ model: 'Grant' })
      .andWhereRaw("payload->>'clientId' = ?", [id])
      .first()) as { id: string };
    // The denylist marks the grant revoked while its row still exists (a refresh in flight while
    // a replay revokes the grant): the refresh must not answer with a usable token.
    await h.service.parts.revocation.denylist.revokeGrant(grant.id, Date.now() / 1000, 3600);
    const refresh = await tokenRequest(
      { grant_type: 'refresh_token', refresh_token: tokens.refresh_token! },
      { id, secret },
    );
    expect(refresh.status).toBe(400);
    expect(refresh.body.error).toBe('invalid_grant');
    expect(refresh.body.access_token).toBeUndefined();
    // The token issued before the revocation is denied too.
    expect((await introspect(tokens.access_token, { id, secret })).active).toBe(false);
  });

  it('refuses an authorization request without PKCE', async () => {
    const { config } = await firstPartyWebClient();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid',
      state: 'x',
    });
    const page = await new Browser(REDIRECT_URI).open(url.href);
    const back = new URL(page.url);
    expect(back.origin + back.pathname).toBe(REDIRECT_URI);
    expect(back.searchParams.get('error')).toBe('invalid_request');
    expect(back.searchParams.get('error_description')).toMatch(/PKCE/);
  });

  it('refuses the implicit grant with unsupported_response_type', async () => {
    const { config } = await firstPartyWebClient();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: REDIRECT_URI,
      scope: 'openid',
      response_type: 'token',
      state: 'x',
      code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });
    const page = await new Browser(REDIRECT_URI).open(url.href);
    const back = new URL(page.url.replace('#', '?'));
    expect(back.searchParams.get('error')).toBe('unsupported_response_type');
  });

  it('refuses a wrong code verifier, a reused code and an expired code with invalid_grant', async () => {
    const { id, secret, config } = await firstPartyWebClient();
    const exchange = (code: string, verifier: string) =>
      tokenRequest(
        { grant_type: 'authorization_code', code, redirect_uri: REDIRECT_URI, code_verifier: verifier },
        { id, secret },
      );

    const a = await startFlow(config, 'openid');
    const codeA = new URL((await signInAs(a, 'ann', 'correct horse')).url).searchParams.get('code')!;
    const wrong = await exchange(codeA, client.randomPKCECodeVerifier());
    expect(wrong.status).toBe(400);
    expect(wrong.body.error).toBe('invalid_grant');

    const b = await startFlow(config, 'openid');
    const codeB = new URL((await signInAs(b, 'ann', 'correct horse')).url).searchParams.get('code')!;
    expect((await exchange(codeB, b.verifier)).status).toBe(200);
    const reused = await exchange(codeB, b.verifier);
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe('invalid_grant');

    const c = await startFlow(config, 'openid');
    const codeC = new URL((await signInAs(c, 'ann', 'correct horse')).url).searchParams.get('code')!;
    // Codes live 60 s: age this one past its expiry instead of waiting a minute.
    const row = (await h.db
      .knex('oidc_payloads')
      .where({ model: 'AuthorizationCode', id: codeC })
      .first()) as {
      payload: { exp: number; iat: number };
    };
    expect(row.payload.exp - row.payload.iat).toBe(60);
    await h.db
      .knex('oidc_payloads')
      .where({ model: 'AuthorizationCode', id: codeC })
      .update({
        payload: JSON.stringify({ ...row.payload, iat: row.payload.iat - 61, exp: row.payload.exp - 61 }),
      });
    const expired = await exchange(codeC, c.verifier);
    expect(expired.status).toBe(400);
    expect(expired.body.error).toBe('invalid_grant');
  });

  it('requires the redirect_uri of the authorization request when the code is exchanged (RFC 6749 4.1.3)', async () => {
    const { id, secret, config } = await firstPartyWebClient();
    const started = await startFlow(config, 'openid');
    const code = new URL((await signInAs(started, 'ann', 'correct horse')).url).searchParams.get('code')!;
    const without = await tokenRequest(
      { grant_type: 'authorization_code', code, code_verifier: started.verifier },
      { id, secret },
    );
    expect(without.status).toBe(400);
    expect(without.body.error).toBe('invalid_request');
    expect(without.body.access_token).toBeUndefined();
  });

  it('refuses an authorization request without redirect_uri (the spec names it), without redirecting', async () => {
    const { config } = await firstPartyWebClient();
    const url = client.buildAuthorizationUrl(config, {
      scope: 'openid',
      state: 'x',
      code_challenge: await client.calculatePKCECodeChallenge(client.randomPKCECodeVerifier()),
      code_challenge_method: 'S256',
    });
    const res = await fetch(url.href, { redirect: 'manual' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(await res.text()).toContain('redirect_uri');
  });

  it('asks a third-party client for consent and issues only after the shopper allows', async () => {
    const { client: c, clientSecret } = await h.register({
      type: 'web',
      firstParty: false,
      scopes: ['openid', 'orders:read'],
      name: 'Partner App',
    });
    const config = await h.discover(c.clientId, clientSecret);
    const started = await startFlow(config, 'openid orders:read');
    const consent = await signInAs(started, 'ann', 'correct horse');
    expect(consent.status).toBe(200);
    expect(consent.html).toContain('Partner App');
    expect(consent.html).toContain('orders:read');
    const callback = await started.browser.submit(consent, '/confirm');
    expect(callback.url.startsWith(REDIRECT_URI)).toBe(true);
    const tokens = await client.authorizationCodeGrant(config, new URL(callback.url), {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
    });
    expect(tokens.scope?.split(' ').sort()).toEqual(['openid', 'orders:read']);
  });

  it("asks a third-party client's consent only for what the shopper's role allows, and issues no more", async () => {
    const { client: c, clientSecret } = await h.register({
      type: 'web',
      firstParty: false,
      scopes: ['openid', 'orders:read', 'users:read', 'admin:all'],
      name: 'Greedy Partner',
    });
    const config = await h.discover(c.clientId, clientSecret);
    const started = await startFlow(config, 'openid orders:read users:read admin:all');
    const consent = await signInAs(started, 'ann', 'correct horse');
    expect(consent.status).toBe(200);
    expect(consent.html).toContain('orders:read');
    expect(consent.html).not.toContain('users:read');
    expect(consent.html).not.toContain('admin:all');
    const callback = await started.browser.submit(consent, '/confirm');
    const tokens = await client.authorizationCodeGrant(config, new URL(callback.url), {
      pkceCodeVerifier: started.verifier,
      expectedState: started.state,
    });
    expect(tokens.scope?.split(' ').sort()).toEqual(['openid', 'orders:read']);
    expect(String(decodeJwt(tokens.access_token).scope).split(' ').sort()).toEqual(['openid', 'orders:read']);
  });

  it('ends with access_denied when the shopper denies consent', async () => {
    const { client: c, clientSecret } = await h.register({
      type: 'web',
      scopes: ['openid', 'orders:read'],
      name: 'Partner App',
    });
    const config = await h.discover(c.clientId, clientSecret);
    const started = await startFlow(config, 'openid orders:read');
    const consent = await signInAs(started, 'ann', 'correct horse');
    const callback = await started.browser.submit(consent, '/abort');
    expect(new URL(callback.url).searchParams.get('error')).toBe('access_denied');
    expect(new URL(callback.url).searchParams.get('error_description')).toBe(
      'The user returned to the application without signing in or granting access',
    );
  });
});
