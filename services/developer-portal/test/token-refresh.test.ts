// The access token's refresh near expiry, on the real Redis: the auth service rotates refresh tokens
// and revokes the whole grant when one is used twice, so concurrent requests of one session must
// share a single refresh. The authorization server here is a stand-in with the same rotation rule.
import { randomBytes } from 'node:crypto';
import type { Request, Response } from 'express';
import { Redis } from 'ioredis';
import { createLogger } from '@ordering/http';
import { REDIS_URL } from '@ordering/testing';
import type { AuthServer, IssuedTokens } from '../src/data-access/auth-server';
import { PlatformApi } from '../src/data-access/platform-api';
import { SessionStore } from '../src/data-access/session-store';
import type { PortalSession } from '../src/domain/session';
import { apiFor, loadSession, type PortalDeps } from '../src/entry-points/http/portal-context';

const prefix = `test:portal-refresh:${randomBytes(4).toString('hex')}:`;
let redis: Redis;
let sessions: SessionStore;

beforeAll(() => {
  redis = new Redis(REDIS_URL);
  sessions = new SessionStore(redis, prefix, 600);
});

afterAll(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
  redis.disconnect();
});

/** Rotating refresh tokens; a second use of one revokes the grant (every later refresh fails). */
function rotatingAuthServer() {
  const used = new Set<string>();
  let revoked = false;
  let n = 0;
  const server = {
    calls: 0,
    get revoked() {
      return revoked;
    },
    async refresh(token: string): Promise<IssuedTokens> {
      server.calls += 1;
      await new Promise((r) => setTimeout(r, 30));
      if (revoked || used.has(token)) {
        revoked = true;
        throw new Error('invalid_grant: refresh token reused, grant revoked');
      }
      used.add(token);
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
    },
  };
  return server;
}

async function requestWith(deps: PortalDeps, cookie: string): Promise<Request> {
  const req = { headers: { cookie } } as unknown as Request;
  await new Promise<void>((resolve) => {
    void loadSession(deps)(req, {} as Response, () => resolve());
  });
  return req;
}

it('two requests of one session near expiry share one refresh (a reused refresh token revokes the grant)', async () => {
  const auth = rotatingAuthServer();
  const deps: PortalDeps = {
    sessions,
    auth: auth as unknown as AuthServer,
    api: new PlatformApi('http://127.0.0.1:9', 1000),
    logger: createLogger({ service: 'developer-portal-test', level: 'silent' }),
    publicUrl: 'http://127.0.0.1:18699',
    cookieSecure: false,
  };
  const expiring: PortalSession = {
    name: 'Pat',
    login: 'pat',
    custId: 'ACME',
    scopes: ['openid', 'profile', 'admin:all'],
    accessToken: 'at-0',
    accessTokenExpiresAt: Math.floor(Date.now() / 1000) + 10,
    refreshToken: 'rt-0',
    csrfToken: 'csrf',
  };
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

it('a request still running when its session was signed out does not refresh it back to life', async () => {
  const auth = rotatingAuthServer();
  const deps: PortalDeps = {
    sessions,
    auth: auth as unknown as AuthServer,
    api: new PlatformApi('http://127.0.0.1:9', 1000),
    logger: createLogger({ service: 'developer-portal-test', level: 'silent' }),
    publicUrl: 'http://127.0.0.1:18699',
    cookieSecure: false,
  };
  const id = await sessions.create({
    name: 'Pat',
    login: 'pat',
    custId: 'ACME',
    scopes: ['openid', 'profile', 'admin:all'],
    accessToken: 'at-0',
    accessTokenExpiresAt: Math.floor(Date.now() / 1000) + 10,
    refreshToken: 'rt-0',
    csrfToken: 'csrf',
  });
  const req = await requestWith(deps, `portal_session=${id}`);
  await sessions.destroy(id); // signed out in another tab
  await expect(apiFor(deps, req)).rejects.toMatchObject({ status: 401 });
  expect(auth.calls).toBe(0);
  expect(await sessions.find(id)).toBeUndefined();
});
