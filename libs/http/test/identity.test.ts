import type express from 'express';
import request from 'supertest';
import { AuthenticationError } from '@ordering/errors';
import {
  createApp,
  hasScope,
  identityOf,
  type Identity,
  requireIdentity,
  requireScope,
  signIdentity,
  verifyIdentity,
} from '../src';
import { captureLogs } from './log-capture';

const SECRET = 'test-identity-secret-0123456789';
const NOW = 1_800_000_000;

function identity(overrides: Partial<Identity> = {}): Identity {
  return {
    sub: 'shopper:acme:jdoe',
    cust_id: 'ACME',
    login: 'jdoe',
    client_id: 'cli_web',
    scopes: ['orders:read'],
    jti: 'jti_1',
    exp: NOW + 300,
    ...overrides,
  };
}

function tamper(header: string, edit: (payload: Record<string, unknown>) => void): string {
  const [payload, mac] = header.split('.') as [string, string];
  const json = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
  edit(json);
  return `${Buffer.from(JSON.stringify(json)).toString('base64url')}.${mac}`;
}

describe('signIdentity / verifyIdentity', () => {
  it('round-trips an identity', () => {
    const header = signIdentity(identity(), SECRET);
    expect(header).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/);
    expect(verifyIdentity(header, SECRET, NOW)).toEqual(identity());
  });

  it('refuses a header whose payload was changed (e.g. a widened cust_id)', () => {
    const forged = tamper(signIdentity(identity(), SECRET), (p) => {
      p.cust_id = 'OTHER';
    });
    expect(() => verifyIdentity(forged, SECRET, NOW)).toThrow(AuthenticationError);
  });

  it('refuses a header signed with another secret', () => {
    const header = signIdentity(identity(), 'another-secret-entirely-xyz');
    expect(() => verifyIdentity(header, SECRET, NOW)).toThrow(AuthenticationError);
  });

  it('refuses an expired identity, and accepts it one second before expiry', () => {
    const header = signIdentity(identity({ exp: NOW }), SECRET);
    expect(() => verifyIdentity(header, SECRET, NOW)).toThrow('expired');
    expect(verifyIdentity(header, SECRET, NOW - 1).login).toBe('jdoe');
  });

  it.each([
    ['empty', ''],
    ['no dot', 'abc'],
    ['three parts', 'a.b.c'],
    ['truncated signature', signIdentity(identity(), SECRET).slice(0, -2)],
    [
      'signed non-JSON',
      (() => {
        const payload = Buffer.from('not json').toString('base64url');
        const mac = signIdentity(identity(), SECRET).split('.')[1];
        return `${payload}.${mac}`;
      })(),
    ],
  ])('refuses a malformed header (%s)', (_label, header) => {
    expect(() => verifyIdentity(header, SECRET, NOW)).toThrow(AuthenticationError);
  });

  it('refuses a correctly signed payload of the wrong shape', () => {
    const bad = { ...identity(), scopes: 'orders:read' } as unknown as Identity;
    expect(() => verifyIdentity(signIdentity(bad, SECRET), SECRET, NOW)).toThrow(AuthenticationError);
  });

  it('refuses to work with an empty secret', () => {
    expect(() => signIdentity(identity(), '')).toThrow('secret');
    expect(() => requireIdentity('')).toThrow('secret');
  });
});

describe('hasScope', () => {
  it('admin:all implies every scope', () => {
    expect(hasScope(identity({ scopes: ['admin:all'] }), 'users:write')).toBe(true);
    expect(hasScope(identity({ scopes: ['orders:read'] }), 'orders:read')).toBe(true);
    expect(hasScope(identity({ scopes: ['orders:read'] }), 'orders:write')).toBe(false);
  });
});

describe('requireIdentity / requireScope middleware', () => {
  const clock = { now: NOW };
  const app = createApp({
    service: 'orders',
    logger: captureLogs().logger,
    routes: (app: express.Express) => {
      app.use(
        '/v1',
        requireIdentity(SECRET, () => clock.now),
      );
      app.get('/v1/orders', requireScope('orders:read'), (req, res) => {
        res.json({ login: identityOf(req).login, cust_id: req.identity?.cust_id });
      });
      app.get('/v1/customers', requireScope('orders:read', 'admin:all'), (_req, res) => {
        res.json({ ok: true });
      });
    },
  });

  it('puts the verified identity on the request', async () => {
    const res = await request(app)
      .get('/v1/orders')
      .set('X-Ordering-Identity', signIdentity(identity(), SECRET))
      .expect(200);
    expect(res.body).toEqual({ login: 'jdoe', cust_id: 'ACME' });
  });

  it.each([
    ['missing', undefined],
    ['forged', tamper(signIdentity(identity(), SECRET), (p) => (p.scopes = ['admin:all']))],
    ['expired', signIdentity(identity({ exp: NOW - 1 }), SECRET)],
  ])('answers 401 invalid_token for a %s identity header', async (_label, header) => {
    const req = request(app).get('/v1/orders').set('X-Request-Id', 'rid-401');
    if (header) req.set('X-Ordering-Identity', header);
    const res = await req.expect(401);
    expect(res.headers['www-authenticate']).toBe('Bearer error="invalid_token"');
    expect(res.body.error).toMatchObject({
      type: 'authentication_error',
      code: 'invalid_token',
      request_id: 'rid-401',
    });
  });

  it('answers 403 insufficient_scope when the identity lacks the scope', async () => {
    const res = await request(app)
      .get('/v1/orders')
      .set('X-Ordering-Identity', signIdentity(identity({ scopes: ['catalog:read'] }), SECRET))
      .expect(403);
    expect(res.body.error).toMatchObject({ type: 'permission_error', code: 'insufficient_scope' });
    expect(res.headers['www-authenticate']).toBe('Bearer error="insufficient_scope", scope="orders:read"');
  });

  it('accepts any one of several scopes, and admin:all for everything', async () => {
    for (const scopes of [['orders:read'], ['admin:all']]) {
      await request(app)
        .get('/v1/customers')
        .set('X-Ordering-Identity', signIdentity(identity({ scopes }), SECRET))
        .expect(200);
    }
    await request(app)
      .get('/v1/orders')
      .set('X-Ordering-Identity', signIdentity(identity({ scopes: ['admin:all'] }), SECRET))
      .expect(200);
    await request(app)
      .get('/v1/customers')
      .set('X-Ordering-Identity', signIdentity(identity({ scopes: ['users:read'] }), SECRET))
      .expect(403);
  });

  it('requireScope without requireIdentity answers 401, never lets the request through', async () => {
    const bare = createApp({
      service: 'orders',
      logger: captureLogs().logger,
      routes: (app) => app.get('/x', requireScope('orders:read'), (_req, res) => void res.json({})),
    });
    await request(bare).get('/x').expect(401);
  });
});

describe('the internal scope', () => {
  const base = { sub: 's', cust_id: 'A', login: 'l', client_id: 'c', jti: 'j', exp: 0 };
  it('is implied by nothing: a customer admin does not reach internal routes', () => {
    expect(hasScope({ ...base, scopes: ['admin:all'] }, 'internal')).toBe(false);
    expect(hasScope({ ...base, scopes: ['internal'] }, 'internal')).toBe(true);
    expect(hasScope({ ...base, scopes: ['admin:all'] }, 'orders:write')).toBe(true);
  });
});
