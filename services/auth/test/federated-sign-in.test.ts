// Federated sign-in with a company's identity provider and just-in-time provisioning, end to end
// over HTTP: our sign-in page, a real upstream OpenID Connect provider (a second oidc-provider),
// the customers service's JIT contract (in-test stand-in), and openid-client as the application.
import * as client from 'openid-client';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { authCli } from '../src/entry-points/cli/auth-cli';
import { AUDIENCE, REDIRECT_URI, startAuthHarness, type AuthHarness } from './support/auth-test-harness';
import type { Page } from './support/browser';
import { ScopedBrowser } from './support/scoped-browser';
import {
  startUpstreamIdentityProvider,
  type UpstreamIdentityProvider,
} from './support/upstream-identity-provider';
import { authorizationRequest } from './support/authorization-request';

let h: AuthHarness;
let idp: UpstreamIdentityProvider;
/** A conforming provider: email only at userinfo. */
let conforming: UpstreamIdentityProvider;
/** A provider whose published keys are not the ones that sign its ID tokens. */
let forged: UpstreamIdentityProvider;
let app: client.Configuration;
let callbackUrl: string;

async function ops(...args: string[]): Promise<unknown> {
  const printed: string[] = [];
  const cli = authCli({
    env: { DATABASE_URL: h.db.url, KEY_ENCRYPTION_KEY: h.config.KEY_ENCRYPTION_KEY },
    out: (text) => printed.push(text),
  });
  cli.exitOverride();
  cli.configureOutput({ writeErr: () => {}, writeOut: () => {} });
  await cli.parseAsync(['node', 'auth', ...args]);
  return JSON.parse(printed.join('\n'));
}

beforeAll(async () => {
  h = await startAuthHarness();
  callbackUrl = `${h.issuer}/oauth/federation/callback`;
  idp = await startUpstreamIdentityProvider({ redirectUri: callbackUrl });
  await ops(
    'idps',
    'add',
    '--domain',
    'Acme.Example',
    '--issuer',
    idp.issuer,
    '--client-id',
    idp.clientId,
    '--client-secret',
    idp.clientSecret,
    '--name',
    'Acme SSO',
  );
  h.customers.allowJit('acme.example', 'ACME');
  h.customers.addChildren('ACME', ['ACME-EAST']);
  conforming = await startUpstreamIdentityProvider({ redirectUri: callbackUrl, claimsInIdToken: false });
  forged = await startUpstreamIdentityProvider({ redirectUri: callbackUrl, publishForeignKeys: true });
  for (const [domain, upstream] of [
    ['conform.example', conforming],
    ['forged.example', forged],
  ] as const) {
    await ops(
      'idps',
      'add',
      '--domain',
      domain,
      '--issuer',
      upstream.issuer,
      '--client-id',
      upstream.clientId,
      '--client-secret',
      upstream.clientSecret,
      '--name',
      `${domain} SSO`,
    );
    // An account of the client's tree (ACME's child): a client signs in only its own tree.
    h.customers.allowJit(domain, 'ACME-EAST');
  }
  const { client: registered, clientSecret } = await h.register({
    type: 'web',
    firstParty: true,
    scopes: ['openid', 'profile', 'email', 'orders:read'],
    name: 'Ordering Web',
  });
  app = await h.discover(registered.clientId, clientSecret);
});
afterAll(async () => {
  await Promise.all([idp?.close(), conforming?.close(), forged?.close()]);
  await h?.close();
});

interface Flow {
  browser: ScopedBrowser;
  page: Page;
  verifier: string;
  state: string;
}

/** The application starts a code flow (PKCE) and the browser lands on our sign-in page. */
async function startFlow(stopAt: string[] = []): Promise<Flow> {
  const { url, verifier, state } = await authorizationRequest(app, {
    redirectUri: REDIRECT_URI,
    scope: 'openid profile email orders:read',
  });
  const browser = new ScopedBrowser([REDIRECT_URI, ...stopAt]);
  const page = await browser.open(url.href);
  expect(page.status).toBe(200);
  return { browser, page, verifier, state };
}

/** Enters `email` under "Sign in with your company account" and follows wherever it leads. */
async function continueWithCompany(flow: Flow, email: string): Promise<Page> {
  const step = await flow.browser.submit(flow.page, '/federate', { email });
  if (step.status !== 200 || !step.html.includes('http-equiv="refresh"')) return step;
  return flow.browser.followRefresh(step);
}

const jitCalls = () => h.customers.calls.filter((c) => c.path === '/internal/v1/users/jit').length;

async function accessTokenClaims(flow: Flow, callback: Page) {
  expect(callback.url.startsWith(REDIRECT_URI)).toBe(true);
  const tokens = await client.authorizationCodeGrant(app, new URL(callback.url), {
    pkceCodeVerifier: flow.verifier,
    expectedState: flow.state,
  });
  const { payload } = await jwtVerify(
    tokens.access_token,
    createRemoteJWKSet(new URL(`${h.issuer}/oauth/jwks.json`)),
    { issuer: h.issuer, audience: AUDIENCE, typ: 'at+jwt', algorithms: ['RS256'] },
  );
  return payload;
}

describe('sign-in page', () => {
  it('offers "Sign in with your company account" with a labelled email field and the CSRF token', async () => {
    const { page } = await startFlow();
    expect(page.html).toMatch(/<h2 id="company-sign-in">Sign in with your company account<\/h2>/);
    expect(page.html).toMatch(/<label for="email">Work email<\/label>/);
    expect(page.html).toMatch(/<input type="email" id="email" name="email"/);
    const form = /<form method="post" action="([^"]*\/federate)"[^>]*>([\s\S]*?)<\/form>/.exec(page.html);
    expect(form?.[2]).toMatch(/<input type="hidden" name="csrf_token" value="[A-Za-z0-9_-]{20,}">/);
  });

  it('refuses the company form posted without the CSRF token', async () => {
    const flow = await startFlow();
    const before = idp.authorizationRequests.length;
    const res = await flow.browser.submit(flow.page, '/federate', {
      email: 'someone@acme.example',
      csrf_token: 'forged',
    });
    expect(res.status).toBe(403);
    expect(idp.authorizationRequests.length).toBe(before);
  });
});

describe('federated sign-in with just-in-time provisioning', () => {
  it('a new person of a mapped domain signs in through the company provider: created once, tokens carry the account and login', async () => {
    idp.person('new.person@acme.example', {
      sub: 'idp-1001',
      email: 'New.Person@acme.example',
      email_verified: true,
      name: 'New Person',
    });
    expect(h.customers.find('new.person@acme.example')).toBeUndefined();

    const first = await startFlow();
    const callsBefore = jitCalls();
    const callback = await continueWithCompany(first, 'new.person@acme.example');
    expect(jitCalls()).toBe(callsBefore + 1);
    const claims = await accessTokenClaims(first, callback);
    expect(claims).toMatchObject({
      cust_id: 'ACME',
      login: 'new.person@acme.example',
      sub: 'shopper:acme:new.person@acme.example',
    });
    expect(h.customers.find('new.person@acme.example')).toMatchObject({
      cust_id: 'ACME',
      name: 'New Person',
      email: 'new.person@acme.example',
    });

    // What went to the provider: code flow with PKCE S256, state, nonce, our callback, the hint.
    const request = idp.authorizationRequests.at(-1)!;
    expect(request.get('response_type')).toBe('code');
    expect(request.get('redirect_uri')).toBe(callbackUrl);
    expect(request.get('code_challenge_method')).toBe('S256');
    expect(request.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(request.get('nonce')).toMatch(/^[A-Za-z0-9_-]{40,}$/);
    expect(request.get('state')).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{40,}$/);
    expect(request.get('login_hint')).toBe('new.person@acme.example');
    expect(request.get('scope')?.split(' ')).toEqual(expect.arrayContaining(['openid', 'email']));

    // A second sign-in of the same person finds the record (one more JIT call, nothing created).
    const second = await startFlow();
    const again = await continueWithCompany(second, 'new.person@acme.example');
    expect(jitCalls()).toBe(callsBefore + 2);
    expect((await accessTokenClaims(second, again)).login).toBe('new.person@acme.example');
  });

  it('an existing shopper whose email the provider vouches for signs in as that shopper', async () => {
    h.customers.add({
      login: 'sam',
      password: 'sam-password-123',
      cust_id: 'ACME',
      email: 'sam@acme.example',
    });
    idp.person('sam@acme.example', { sub: 'idp-sam', email: 'sam@acme.example', email_verified: true });
    const flow = await startFlow();
    const claims = await accessTokenClaims(flow, await continueWithCompany(flow, 'sam@acme.example'));
    expect(claims).toMatchObject({ cust_id: 'ACME', login: 'sam', sub: 'shopper:acme:sam' });
  });
});

describe('identity from a conforming provider', () => {
  it('reads email and email_verified from userinfo when the ID token carries only the subject', async () => {
    conforming.person('lee@conform.example', {
      sub: 'c-1',
      email: 'lee@conform.example',
      email_verified: true,
      name: 'Lee',
    });
    const flow = await startFlow();
    const claims = await accessTokenClaims(flow, await continueWithCompany(flow, 'lee@conform.example'));
    expect(claims).toMatchObject({ cust_id: 'ACME-EAST', login: 'lee@conform.example' });
    expect(h.customers.find('lee@conform.example')).toMatchObject({ name: 'Lee' });
  });

  it('still refuses an unverified email given at userinfo', async () => {
    conforming.person('kim@conform.example', {
      sub: 'c-2',
      email: 'kim@conform.example',
      email_verified: false,
    });
    const flow = await startFlow();
    const page = await continueWithCompany(flow, 'kim@conform.example');
    expect(page.status).toBe(401);
    expect(page.html).toMatch(/no verified email address/);
  });
});

describe('federated sign-in refusals, shown on the sign-in page', () => {
  const expectRefusal = (page: Page, status: number, message: RegExp) => {
    expect(page.status).toBe(status);
    expect(page.url).toMatch(/\/oauth\/interaction\//);
    expect(page.headers.get('content-type')).toMatch(/text\/html/);
    expect(page.html).toMatch(/<p class="error" role="alert" id="company-sign-in-error">/);
    expect(page.html).toMatch(/aria-describedby="company-sign-in-error"/);
    expect(page.html).toMatch(message);
  };

  it('an email whose domain has no identity provider', async () => {
    const flow = await startFlow();
    const before = idp.authorizationRequests.length;
    const page = await continueWithCompany(flow, 'pat@unknown.example');
    expectRefusal(page, 404, /There is no company sign-in for unknown\.example/);
    expect(page.html).toContain('value="pat@unknown.example"');
    expect(idp.authorizationRequests.length).toBe(before);
  });

  it('something that is not an email address', async () => {
    const flow = await startFlow();
    expectRefusal(await continueWithCompany(flow, 'not an email'), 400, /Enter your work email address/);
  });

  it('an unverified email', async () => {
    idp.person('unverified@acme.example', {
      sub: 'idp-2',
      email: 'unverified@acme.example',
      email_verified: false,
    });
    const flow = await startFlow();
    const before = jitCalls();
    expectRefusal(
      await continueWithCompany(flow, 'unverified@acme.example'),
      401,
      /no verified email address/,
    );
    expect(jitCalls()).toBe(before);
    expect(h.customers.find('unverified@acme.example')).toBeUndefined();
  });

  it('an email that cannot be a login (characters, length): refused with a page that says why, nobody created', async () => {
    const odd = "o'brien@acme.example";
    idp.person(odd, { sub: 'idp-odd', email: odd, email_verified: true });
    const flow = await startFlow();
    expectRefusal(await continueWithCompany(flow, odd), 403, /cannot be a login here/);
    expect(h.customers.find(odd)).toBeUndefined();
  });

  it("an email whose login is a user of another account than the domain's: refused with a page that says why, never signed into that user", async () => {
    const email = 'pre.created@acme.example';
    h.customers.add({ login: email, password: '', cust_id: 'GLOBEX', email, name: 'Pre-created elsewhere' });
    idp.person(email, { sub: 'idp-pre', email, email_verified: true });
    const flow = await startFlow();
    expectRefusal(await continueWithCompany(flow, email), 403, /login of a user outside your company/);
  });

  it("an email outside the provider's own domain", async () => {
    idp.person('sneaky@acme.example', { sub: 'idp-3', email: 'ceo@globex.example', email_verified: true });
    const flow = await startFlow();
    const before = jitCalls();
    expectRefusal(await continueWithCompany(flow, 'sneaky@acme.example'), 401, /outside acme\.example/);
    expect(jitCalls()).toBe(before);
  });

  it("an ID token whose signature does not verify against the provider's published keys", async () => {
    forged.person('mallory@forged.example', {
      sub: 'f-1',
      email: 'mallory@forged.example',
      email_verified: true,
    });
    const flow = await startFlow();
    const before = jitCalls();
    expectRefusal(
      await continueWithCompany(flow, 'mallory@forged.example'),
      401,
      /forged\.example SSO did not sign you in/,
    );
    expect(jitCalls()).toBe(before);
    expect(h.customers.find('mallory@forged.example')).toBeUndefined();
  });

  it('the provider refusing the person', async () => {
    idp.person('denied@acme.example', {
      sub: 'idp-4',
      email: 'denied@acme.example',
      email_verified: true,
      deny: true,
    });
    const flow = await startFlow();
    expectRefusal(
      await continueWithCompany(flow, 'denied@acme.example'),
      401,
      /Acme SSO did not sign you in/,
    );
  });

  it('a deactivated shopper', async () => {
    h.customers.add({
      login: 'gone@acme.example',
      password: '',
      cust_id: 'ACME',
      email: 'gone@acme.example',
    });
    h.customers.deactivate('gone@acme.example');
    idp.person('gone@acme.example', { sub: 'idp-5', email: 'gone@acme.example', email_verified: true });
    const flow = await startFlow();
    expectRefusal(await continueWithCompany(flow, 'gone@acme.example'), 403, /deactivated/);
  });

  it('an answer whose state does not match, and a replayed answer', async () => {
    idp.person('state@acme.example', { sub: 'idp-6', email: 'state@acme.example', email_verified: true });
    const flow = await startFlow([callbackUrl]);
    const atCallback = await continueWithCompany(flow, 'state@acme.example');
    expect(atCallback.url.startsWith(callbackUrl)).toBe(true);
    const answer = new URL(atCallback.url);
    const state = answer.searchParams.get('state')!;
    const [uid] = state.split('.');
    const tampered = new URL(answer);
    tampered.searchParams.set('state', `${uid}.${'x'.repeat(43)}`);
    flow.browser.passThrough(callbackUrl);
    const before = jitCalls();
    expectRefusal(await flow.browser.open(tampered.href), 400, /does not belong to this sign-in/);
    // The genuine answer arriving afterwards finds nothing left to match: single use.
    expectRefusal(await flow.browser.open(answer.href), 400, /expired or was already used/);
    expect(jitCalls()).toBe(before);
  });

  it('an answer in another browser (no interaction cookie) finishes nothing', async () => {
    idp.person('other@acme.example', { sub: 'idp-7', email: 'other@acme.example', email_verified: true });
    const flow = await startFlow([callbackUrl]);
    const atCallback = await continueWithCompany(flow, 'other@acme.example');
    const elsewhere = new ScopedBrowser([REDIRECT_URI]);
    const page = await elsewhere.open(atCallback.url);
    expect(page.status).toBe(400);
    expect(page.url.startsWith(REDIRECT_URI)).toBe(false);
    expect(page.html).toMatch(/start signing in again/);
  });

  it('the customers service down when the person comes back: a temporary-unavailability page', async () => {
    idp.person('later@acme.example', { sub: 'idp-8', email: 'later@acme.example', email_verified: true });
    const flow = await startFlow([callbackUrl]);
    const atCallback = await continueWithCompany(flow, 'later@acme.example');
    flow.browser.passThrough(callbackUrl);
    h.customers.setDown(true);
    try {
      const page = await flow.browser.open(atCallback.url);
      expect(page.status).toBe(503);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
      expect(page.html).toMatch(/not possible right now/);
    } finally {
      h.customers.setDown(false);
    }
  });

  it('a malformed state is refused without redirecting anywhere', async () => {
    for (const state of ['https://evil.example/x', '//evil.example', '../../x.abcdefghijklmnopqrstu', '']) {
      const res = await fetch(`${callbackUrl}?code=x&state=${encodeURIComponent(state)}`, {
        redirect: 'manual',
      });
      expect(res.status).toBe(400);
      expect(res.headers.get('location')).toBeNull();
    }
  });
});
