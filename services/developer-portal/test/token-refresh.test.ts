// A session's tokens, on the real Redis: the auth service rotates refresh tokens and revokes the
// whole grant when one is used twice, so concurrent requests of one session (in one process or in
// two replicas) must share a single refresh, nothing may write an older refresh token back, and an
// ended session's grant is revoked. The authorization server here is a stand-in with the same
// rotation rule.
import type { AddressInfo } from 'node:net';
import express, { type Request, type Response } from 'express';
import { createLogger } from '@ordering/http';
import { type AuthServer, type IssuedTokens, RefreshRefusedError } from '../src/data-access/auth-server';
import { PlatformApi } from '../src/data-access/platform-api';
import type { PortalSession } from '../src/domain/session';
import * as portalContext from '../src/entry-points/http/portal-context';
import {
  apiFor,
  flash,
  loadSession,
  takeFlash,
  type PortalDeps,
} from '../src/entry-points/http/portal-context';
import { signInRoutes } from '../src/entry-points/http/sign-in-routes';
import { adminSession, testSessions } from './support/portal-test-kit';

const store = testSessions('portal-refresh');
const sessions = store.sessions;

afterAll(() => store.close());

/** Rotating refresh tokens; a second use of one revokes the grant (every later refresh fails). */
function rotatingAuthServer() {
  const used = new Set<string>();
  let revoked = false;
  /** Refreshes that fail as an unreachable or restarting auth service does (not a refusal). */
  let outages = 0;
  let n = 0;
  /** The next token set: at-<n>, rt-<n>. */
  const issue = (): IssuedTokens => {
    n += 1;
    return {
      accessToken: `at-${n}`,
      accessTokenExpiresAt: Math.floor(Date.now() / 1000) + 300,
      refreshToken: `rt-${n}`,
      scopes: ['openid', 'profile', 'admin:all'],
      name: 'Pat',
      login: 'pat',
      custId: 'ACME',
    };
  };
  const server = {
    calls: 0,
    /** Refresh tokens revoked through the revocation endpoint. */
    revokedTokens: [] as string[],
    async revoke(token: string): Promise<void> {
      server.revokedTokens.push(token);
    },
    async finishSignIn(): Promise<IssuedTokens> {
      return issue();
    },
    get revoked() {
      return revoked;
    },
    /** The next `n` refreshes fail as if the auth service could not be reached. */
    failNext(n: number) {
      outages = n;
    },
    async refresh(token: string): Promise<IssuedTokens> {
      server.calls += 1;
      await new Promise((r) => setTimeout(r, 30));
      if (outages > 0) {
        outages -= 1;
        throw new TypeError('fetch failed');
      }
      if (revoked || used.has(token)) {
        revoked = true;
        throw new RefreshRefusedError('invalid_grant');
      }
      used.add(token);
      return issue();
    },
  };
  return server;
}

function depsWith(auth: ReturnType<typeof rotatingAuthServer>): PortalDeps {
  return {
    sessions,
    auth: auth as unknown as AuthServer,
    api: new PlatformApi('http://127.0.0.1:9', 1000),
    logger: createLogger({ service: 'developer-portal-test', level: 'silent' }),
    publicUrl: 'http://127.0.0.1:18699',
    cookieSecure: false,
  };
}

function expiringSession(refreshToken = 'rt-0'): PortalSession {
  return adminSession({
    accessTokenExpiresAt: Math.floor(Date.now() / 1000) + 10,
    refreshToken,
    csrfToken: 'csrf',
  });
}

async function requestWith(deps: PortalDeps, cookie: string, load = loadSession): Promise<Request> {
  const req = { headers: { cookie } } as unknown as Request;
  await new Promise<void>((resolve) => {
    void load(deps)(req, {} as Response, () => resolve());
  });
  return req;
}

it('two requests of one session near expiry share one refresh (a reused refresh token revokes the grant)', async () => {
  const auth = rotatingAuthServer();
  const deps = depsWith(auth);
  const expiring = expiringSession();
  const id = await sessions.create(expiring);
  const cookie = `portal_session=${id}`;
  const [a, b] = await Promise.all([requestWith(deps, cookie), requestWith(deps, cookie)]);
  await expect(Promise.all([apiFor(deps, a), apiFor(deps, b)])).resolves.toHaveLength(2);
  expect(auth.calls).toBe(1);
  expect(auth.revoked).toBe(false);
  const stored = await sessions.find(id);
  expect(stored).toMatchObject({ accessToken: 'at-1', refreshToken: 'rt-1' });

  // A request that loaded the session before it was refreshed elsewhere does not refresh it again.
  const late = await requestWith(deps, cookie);
  await sessions.save(id, expiring);
  const stale = await requestWith(deps, cookie);
  await sessions.save(id, stored!);
  await apiFor(deps, stale);
  await apiFor(deps, late);
  expect(auth.calls).toBe(1);
});

it('a refresh the auth service cannot answer now keeps the session (503); the next request refreshes it', async () => {
  const auth = rotatingAuthServer();
  const deps = depsWith(auth);
  const expiring = expiringSession();
  const id = await sessions.create(expiring);
  const cookie = `portal_session=${id}`;
  auth.failNext(1);
  await expect(apiFor(deps, await requestWith(deps, cookie))).rejects.toMatchObject({ status: 503 });
  // Still signed in, with the refresh token it had: nothing was used up.
  expect(await sessions.find(id)).toMatchObject({ refreshToken: 'rt-0' });
  await expect(apiFor(deps, await requestWith(deps, cookie))).resolves.toBeDefined();
  expect(await sessions.find(id)).toMatchObject({ accessToken: 'at-1', refreshToken: 'rt-1' });
  expect(auth.revoked).toBe(false);
});

it('a refresh token the auth service refuses ends the session (401)', async () => {
  const auth = rotatingAuthServer();
  const deps = depsWith(auth);
  const id = await sessions.create(expiringSession());
  const cookie = `portal_session=${id}`;
  await apiFor(deps, await requestWith(deps, cookie)); // rt-0 used
  await sessions.save(id, expiringSession('rt-0')); // an older token written back: reuse
  await expect(apiFor(deps, await requestWith(deps, cookie))).rejects.toMatchObject({ status: 401 });
  expect(auth.revoked).toBe(true);
});

it('a request still running when its session was signed out does not refresh it back to life', async () => {
  const auth = rotatingAuthServer();
  const deps = depsWith(auth);
  const id = await sessions.create(expiringSession());
  const req = await requestWith(deps, `portal_session=${id}`);
  await sessions.take(id); // signed out in another tab
  await expect(apiFor(deps, req)).rejects.toMatchObject({ status: 401 });
  expect(auth.calls).toBe(0);
  expect(await sessions.find(id)).toBeUndefined();
});

it('two replicas refresh one session once: one holds the lock in Redis, the other waits for its tokens', async () => {
  const auth = rotatingAuthServer();
  const deps = depsWith(auth);
  // A second copy of the module is a second replica: its own refreshes in flight, the same Redis.
  let replica!: typeof portalContext;
  jest.isolateModules(() => {
    replica = jest.requireActual<typeof portalContext>('../src/entry-points/http/portal-context');
  });
  expect(replica.apiFor).not.toBe(apiFor);
  const id = await sessions.create(expiringSession());
  const cookie = `portal_session=${id}`;
  const [a, b] = await Promise.all([
    requestWith(deps, cookie),
    requestWith(deps, cookie, replica.loadSession),
  ]);
  await Promise.all([apiFor(deps, a), replica.apiFor(deps, b)]);
  expect(auth.calls).toBe(1);
  expect(auth.revoked).toBe(false);
  expect(portalContext.sessionOf(a)?.session).toMatchObject({ accessToken: 'at-1', refreshToken: 'rt-1' });
  expect(replica.sessionOf(b)?.session).toMatchObject({ accessToken: 'at-1', refreshToken: 'rt-1' });
  expect(await sessions.find(id)).toMatchObject({ accessToken: 'at-1', refreshToken: 'rt-1' });
  expect(await store.redis.keys(`${store.prefix}portal:refresh-lock:*`)).toEqual([]);
});

it('a sign-out while the refresh runs ends the session and revokes the grant the refresh got', async () => {
  const auth = rotatingAuthServer();
  const deps = depsWith(auth);
  const id = await sessions.create(expiringSession());
  const req = await requestWith(deps, `portal_session=${id}`);
  const refreshing = apiFor(deps, req);
  await new Promise((resolve) => setTimeout(resolve, 10)); // the stand-in answers after 30 ms
  await sessions.take(id);
  await expect(refreshing).rejects.toMatchObject({ status: 401 });
  expect(auth.calls).toBe(1);
  expect(await sessions.find(id)).toBeUndefined();
  expect(auth.revokedTokens).toEqual(['rt-1']);
});

it("a page's message never writes the session's older tokens back", async () => {
  const auth = rotatingAuthServer();
  const deps = depsWith(auth);
  const id = await sessions.create({
    ...expiringSession(),
    accessTokenExpiresAt: Math.floor(Date.now() / 1000) + 600,
  });
  const req = await requestWith(deps, `portal_session=${id}`);
  // Another request refreshes the session meanwhile (rt-0 is spent).
  const refreshed = { ...(await sessions.find(id))!, accessToken: 'at-1', refreshToken: 'rt-1' };
  await sessions.save(id, refreshed);
  await flash(deps, req, 'success', 'Webhook created.');
  expect(await sessions.find(id)).toMatchObject({ accessToken: 'at-1', refreshToken: 'rt-1' });
  expect(await takeFlash(deps, req)).toEqual({ kind: 'success', text: 'Webhook created.' });
  expect(await takeFlash(deps, req)).toBeUndefined();
});

describe('an ended session revokes its grant', () => {
  async function portalWith(deps: PortalDeps) {
    const app = express();
    app.use(loadSession(deps));
    app.use(signInRoutes(deps));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    return { url, close: () => new Promise((resolve) => server.close(resolve)) };
  }

  it('at sign-out, the refresh token stored now (another request may have rotated it)', async () => {
    const auth = rotatingAuthServer();
    const deps = depsWith(auth);
    const portal = await portalWith(deps);
    try {
      const id = await sessions.create(expiringSession('rt-7'));
      const res = await fetch(`${portal.url}/sign-out`, {
        method: 'POST',
        redirect: 'manual',
        headers: { cookie: `portal_session=${id}` },
      });
      expect(res.status).toBe(303);
      expect(await sessions.find(id)).toBeUndefined();
      expect(auth.revokedTokens).toEqual(['rt-7']);
    } finally {
      await portal.close();
    }
  });

  it('at a new sign-in over it, the previous session ends with its grant', async () => {
    const auth = rotatingAuthServer();
    const deps = depsWith(auth);
    const portal = await portalWith(deps);
    try {
      const previous = await sessions.create(expiringSession('rt-old'));
      const pending = await sessions.createPending({
        state: 's',
        nonce: 'n',
        codeVerifier: 'v',
        returnTo: '/webhooks',
      });
      const res = await fetch(`${portal.url}/callback?code=c&state=s`, {
        redirect: 'manual',
        headers: { cookie: `portal_session=${previous}; portal_sign_in=${pending}` },
      });
      expect(res.status).toBe(303);
      expect(res.headers.get('location')).toBe('/webhooks');
      expect(await sessions.find(previous)).toBeUndefined();
      expect(auth.revokedTokens).toEqual(['rt-old']);
    } finally {
      await portal.close();
    }
  });
});
