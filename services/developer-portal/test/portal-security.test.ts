// The portal's own guards, in-process on the real Redis: headers of every page, the bundled
// assets, sign-in required, admins only, CSRF and Origin checks on every form, escaping of what the
// API returns, no open redirect after sign-in. (The whole flow in a real browser against the real
// platform is test-e2e/developer-portal.test.ts.)
import type { RunningPortal } from '../src';
import { safeReturnPath, type PortalSession } from '../src/domain/session';
import { STYLESHEET_PATH } from '../src/entry-points/http/views/assets';
import { webhooksPage } from '../src/entry-points/http/views/webhook-views';
import { adminSession, startTestPortal, testSessions } from './support/portal-test-kit';

const store = testSessions('portal');
const sessions = store.sessions;
let portal: RunningPortal;

beforeAll(async () => {
  // Nothing listens at the gateway either: the guards are what is tested.
  portal = await startTestPortal(store, {
    publicUrl: 'http://127.0.0.1:18699',
    gatewayUrl: 'http://127.0.0.1:9',
  });
});

afterAll(async () => {
  await portal?.stop();
  await store.close();
});

function session(scopes: string[]): PortalSession {
  return adminSession({ scopes, accessToken: 'not-used' });
}

const get = (path: string, cookie?: string) =>
  fetch(`${portal.url}${path}`, { redirect: 'manual', headers: cookie ? { cookie } : {} });

const post = (path: string, form: Record<string, string>, headers: Record<string, string> = {}) =>
  fetch(`${portal.url}${path}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });

describe('every page', () => {
  it('has a strict CSP (no script), no caching, no framing, no sniffing', async () => {
    const res = await get('/');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-security-policy')).toBe(
      "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await res.text();
    expect(html).not.toMatch(/<script|https?:\/\/(?!127\.0\.0\.1)/);
    expect(html).toContain(`href="${STYLESHEET_PATH}"`);
  });

  it('serves its bundled stylesheet under a content hash, cached for good; unknown assets are 404 pages', async () => {
    const css = await get(STYLESHEET_PATH);
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toBe('text/css; charset=utf-8');
    expect(css.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await css.text()).toContain('.skip-link');
    const missing = await get('/assets/portal-000000000000.css');
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/text\/html/);
  });
});

describe('who may see what', () => {
  it('sends a visitor without a session to sign in, back to the page asked for', async () => {
    const res = await get('/webhooks/wh_1/deliveries?status=failed');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe(
      `/sign-in?return_to=${encodeURIComponent('/webhooks/wh_1/deliveries?status=failed')}`,
    );
  });

  it('shows a signed-in user without admin:all a page saying the pages are for admins', async () => {
    const id = await sessions.create(session(['openid', 'profile']));
    for (const path of ['/webhooks', '/oauth-clients', '/webhooks/new']) {
      const res = await get(path, `portal_session=${id}`);
      expect(res.status).toBe(403);
      expect(await res.text()).toMatch(/Administrators only[\s\S]*role does not allow/);
    }
  });

  it('a forged or unknown session cookie is no session', async () => {
    const res = await get('/oauth-clients', 'portal_session=forged-session-id-of-some-length');
    expect(res.status).toBe(303);
  });

  it('never redirects after sign-in outside the portal', () => {
    expect(safeReturnPath('/webhooks?x=1')).toBe('/webhooks?x=1');
    for (const bad of ['//evil.example/x', 'https://evil.example', '/\\evil.example', 'webhooks', undefined])
      expect(safeReturnPath(bad)).toBe('/');
  });
});

describe('forms', () => {
  it('refuses a post without the session, without its CSRF token, or from another origin (403), before acting', async () => {
    const s = session(['openid', 'admin:all']);
    const id = await sessions.create(s);
    const cookie = `portal_session=${id}`;
    const noSession = await post('/webhooks/wh_1/delete', { csrf_token: s.csrfToken });
    expect(noSession.status).toBe(403);
    const noToken = await post('/webhooks/wh_1/delete', {}, { cookie });
    expect(noToken.status).toBe(403);
    const wrongToken = await post('/webhooks/wh_1/delete', { csrf_token: `${s.csrfToken}x` }, { cookie });
    expect(wrongToken.status).toBe(403);
    const otherOrigin = await post(
      '/webhooks/wh_1/delete',
      { csrf_token: s.csrfToken },
      { cookie, origin: 'https://evil.example' },
    );
    expect(otherOrigin.status).toBe(403);
    expect(await otherOrigin.text()).toContain('This form has expired');
    // The right token from the portal's own origin gets through to the API (unreachable here: 502).
    const ok = await post(
      '/webhooks/wh_1/delete',
      { csrf_token: s.csrfToken },
      { cookie, origin: 'http://127.0.0.1:18699' },
    );
    expect(ok.status).toBe(502);
    expect(await ok.text()).toMatch(/could not answer/);
  });

  it('sign-out needs the token too, and ends the session', async () => {
    const s = session(['openid', 'admin:all']);
    const id = await sessions.create(s);
    expect((await post('/sign-out', {}, { cookie: `portal_session=${id}` })).status).toBe(403);
    const out = await post('/sign-out', { csrf_token: s.csrfToken }, { cookie: `portal_session=${id}` });
    expect(out.status).toBe(303);
    expect(await sessions.find(id)).toBeUndefined();
  });

  it('signing out of a session that already ended clears the cookie rather than call the form expired', async () => {
    const out = await post(
      '/sign-out',
      { csrf_token: 'stale' },
      { cookie: `portal_session=${'x'.repeat(43)}` },
    );
    expect(out.status).toBe(303);
    expect(out.headers.get('location')).toBe('/');
    expect(out.headers.get('set-cookie')).toMatch(/^portal_session=;.*Expires=Thu, 01 Jan 1970/);
  });
});

describe('the sign-in callback', () => {
  const callback = (query: string, cookie?: string) => get(`/callback?${query}`, cookie);
  const crafted = 'error=access_denied&error_description=Your+account+is+locked.+Call+%2B1+555+0100';

  it("shows the authorization server's refusal for this browser's sign-in in flight (its state)", async () => {
    const pending = await sessions.createPending({
      state: 'st-1',
      nonce: 'n',
      codeVerifier: 'v',
      returnTo: '/',
    });
    const res = await callback(`${crafted}&state=st-1`, `portal_sign_in=${pending}`);
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('The sign-in was refused (access_denied: Your account is locked.');
  });

  it("puts no words of a crafted link on the portal's page (no sign-in in flight, or another state)", async () => {
    const withoutSignIn = await callback(`${crafted}&state=st-2`);
    const pending = await sessions.createPending({
      state: 'st-3',
      nonce: 'n',
      codeVerifier: 'v',
      returnTo: '/',
    });
    const otherState = await callback(`${crafted}&state=st-2`, `portal_sign_in=${pending}`);
    for (const res of [withoutSignIn, otherState]) {
      expect(res.status).toBe(400);
      const html = await res.text();
      expect(html).toContain('This sign-in expired or was already used. Start again.');
      expect(html).not.toMatch(/locked|555|access_denied/);
    }
  });
});

it('escapes whatever the API returns', () => {
  const html = webhooksPage({
    user: { name: '<b>Pat</b>', login: 'pat', custId: 'ACME', csrfToken: 't' },
    subscriptions: [
      {
        id: 'wh_"><script>',
        object: 'webhook_subscription',
        url: 'https://x.example/<script>alert(1)</script>',
        events: ['order.shipped'],
        description: '"><img src=x onerror=alert(1)>',
        status: 'enabled',
        ordering: 'none',
        created_at: new Date().toISOString(),
      },
    ],
    nextCursor: null,
  });
  expect(html).not.toMatch(/<script|<img|<b>Pat/);
  expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
});
