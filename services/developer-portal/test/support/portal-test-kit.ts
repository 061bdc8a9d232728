// What the portal's in-process tests share: sessions on the real Redis under a key prefix of their
// own (deleted when the file ends), a signed-in admin's session, a stand-in gateway answering as the
// test says, and the portal itself started over a gateway of the test's choosing.
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
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

/** What the stand-in gateway answers: a status (default 200) and a JSON body. */
export interface StubAnswer {
  status?: number;
  body: unknown;
}

export interface StubGateway {
  url: string;
  close(): Promise<void>;
}

/**
 * A local HTTP server in the gateway's place: `answer` gets each request's method, path (with its
 * query) and body text; undefined answers 404.
 */
export async function startStubGateway(
  answer: (req: { method: string; url: string; body: string }) => StubAnswer | undefined,
): Promise<StubGateway> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const given = answer({
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        body: Buffer.concat(chunks).toString(),
      }) ?? { status: 404, body: { error: { message: 'No such thing' } } };
      res.statusCode = given.status ?? 200;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(given.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The subscription `we_1` as the API answers it; `overrides` change what a test needs. */
export function stubSubscription(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'we_1',
    object: 'webhook_subscription',
    url: 'https://hooks.example.com/in',
    events: ['order.submitted'],
    description: null,
    status: 'enabled',
    ordering: 'none',
    created_at: '2026-11-20T00:00:00.000Z',
    ...overrides,
  };
}
