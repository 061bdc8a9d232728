// What the portal's in-process tests share: sessions on the real Redis under a key prefix of their
// own (deleted when the file ends), a signed-in admin's session, and the portal itself started over
// a gateway of the test's choosing.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { REDIS_URL } from '@ordering/testing';
import { portalConfigSchema, startPortal, type RunningPortal } from '../../src';
import { SessionStore } from '../../src/data-access/session-store';
import type { PortalSession } from '../../src/domain/session';

export interface TestSessions {
  /** The Redis key prefix of this file's sessions (and of a portal started with them). */
  prefix: string;
  /** The connection the sessions use, for a test that reads their keys. */
  redis: Redis;
  sessions: SessionStore;
  /** Deletes this file's keys and disconnects. */
  close(): Promise<void>;
}

export function testSessions(name: string): TestSessions {
  const prefix = `test:${name}:${randomBytes(4).toString('hex')}:`;
  const redis = new Redis(REDIS_URL);
  return {
    prefix,
    redis,
    sessions: new SessionStore(redis, prefix, 600),
    async close() {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    },
  };
}

/** Pat, an admin of ACME, signed in for an hour; `overrides` change what a test needs. */
export function adminSession(overrides: Partial<PortalSession> = {}): PortalSession {
  return {
    name: 'Pat',
    login: 'pat',
    custId: 'ACME',
    scopes: ['openid', 'profile', 'admin:all'],
    accessToken: 'at-0',
    accessTokenExpiresAt: Math.floor(Date.now() / 1000) + 3600,
    refreshToken: undefined,
    csrfToken: randomBytes(16).toString('base64url'),
    ...overrides,
  };
}

/**
 * The portal in-process on `sessions`' Redis prefix. Its authorization server never answers (port
 * 9): signing in is not what these tests exercise.
 */
export function startTestPortal(
  sessions: TestSessions,
  options: { publicUrl: string; gatewayUrl: string },
): Promise<RunningPortal> {
  return startPortal(
    portalConfigSchema.parse({
      NODE_ENV: 'test',
      LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
      PORT: '0',
      HOST: '127.0.0.1',
      PORTAL_PUBLIC_URL: options.publicUrl,
      AUTH_ISSUER: 'http://127.0.0.1:9',
      GATEWAY_URL: options.gatewayUrl,
      REDIS_URL,
      REDIS_KEY_PREFIX: sessions.prefix,
    }),
  );
}
