// The caller's identity as the gateway forwards it. The gateway verifies the bearer JWT and sends
// `X-Ordering-Identity: <base64url(JSON)>.<base64url(HMAC-SHA256(secret, first part))>`; services
// trust only a header signed with the shared secret, so a client cannot forge one.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { AuthenticationError, NotAllowedError } from '@ordering/errors';

export const IDENTITY_HEADER = 'X-Ordering-Identity';
export const ADMIN_SCOPE = 'admin:all';
/**
 * Held only by the platform's own callers (services, operators) on `/internal` routes, which the
 * gateway never routes. A customer's `admin:all` does not imply it.
 */
export const INTERNAL_SCOPE = 'internal';

export interface Identity {
  /** Subject of the access token. */
  sub: string;
  /** The customer account the token acts for (and its descendants). */
  cust_id: string;
  login: string;
  client_id: string;
  scopes: string[];
  /** Access token id (rate limiting, revocation). */
  jti: string;
  /** Expiry, seconds since the epoch (that of the access token). */
  exp: number;
}

function mac(secret: string, payload: string): Buffer {
  return createHmac('sha256', secret).update(payload).digest();
}

function assertSecret(secret: string): void {
  if (typeof secret !== 'string' || secret.length === 0) {
    throw new Error('The identity signing secret is empty');
  }
}

export function signIdentity(identity: Identity, secret: string): string {
  assertSecret(secret);
  const payload = Buffer.from(JSON.stringify(identity)).toString('base64url');
  return `${payload}.${mac(secret, payload).toString('base64url')}`;
}

function isIdentity(value: unknown): value is Identity {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.sub === 'string' &&
    typeof v.cust_id === 'string' &&
    typeof v.login === 'string' &&
    typeof v.client_id === 'string' &&
    typeof v.jti === 'string' &&
    typeof v.exp === 'number' &&
    Number.isFinite(v.exp) &&
    Array.isArray(v.scopes) &&
    v.scopes.every((s) => typeof s === 'string')
  );
}

/**
 * Checks the signature (constant time), the shape and the expiry of an identity header.
 * Throws AuthenticationError (401 invalid_token) on any failure.
 */
export function verifyIdentity(header: string, secret: string, nowSeconds = Date.now() / 1000): Identity {
  assertSecret(secret);
  const parts = typeof header === 'string' ? header.split('.') : [];
  if (parts.length !== 2 || !parts[0] || !parts[1]) throw new AuthenticationError();
  const [payload, signature] = parts as [string, string];
  const expected = mac(secret, payload);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw new AuthenticationError();
  }
  let identity: unknown;
  try {
    identity = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw new AuthenticationError();
  }
  if (!isIdentity(identity)) throw new AuthenticationError();
  if (identity.exp <= nowSeconds) throw new AuthenticationError('The bearer token has expired');
  return {
    sub: identity.sub,
    cust_id: identity.cust_id,
    login: identity.login,
    client_id: identity.client_id,
    scopes: [...identity.scopes],
    jti: identity.jti,
    exp: identity.exp,
  };
}

/** Verifies `X-Ordering-Identity` and sets `req.identity`; 401 invalid_token otherwise. */
export function requireIdentity(secret: string, now: () => number = () => Date.now() / 1000): RequestHandler {
  assertSecret(secret);
  return (req, _res, next) => {
    const header = req.headers['x-ordering-identity'];
    if (typeof header !== 'string' || header.length === 0) {
      next(new AuthenticationError());
      return;
    }
    try {
      req.identity = verifyIdentity(header, secret, now());
      next();
    } catch (err) {
      next(err);
    }
  };
}

/** Whether the identity holds `scope`; `admin:all` implies every scope but `internal`. */
export function hasScope(identity: Identity, scope: string): boolean {
  if (identity.scopes.includes(scope)) return true;
  return scope !== INTERNAL_SCOPE && identity.scopes.includes(ADMIN_SCOPE);
}

/** The identity set by `requireIdentity`; 401 when the route was mounted without it. */
export function identityOf(req: Request): Identity {
  if (!req.identity) throw new AuthenticationError();
  return req.identity;
}

/**
 * 403 insufficient_scope unless `identity` holds one of `anyOf` (or `admin:all`), with the RFC 6750
 * challenge every such refusal carries, here and at the gateway.
 */
export function assertScopes(identity: Identity, anyOf: readonly string[]): void {
  if (anyOf.some((scope) => hasScope(identity, scope))) return;
  // RFC 6750 section 3: the scope attribute lists what is needed, so name it only when one scope does.
  const challenge =
    anyOf.length === 1
      ? `Bearer error="insufficient_scope", scope="${anyOf[0]}"`
      : 'Bearer error="insufficient_scope"';
  throw new NotAllowedError(`This request needs the scope ${anyOf.join(' or ')}`, 'insufficient_scope', {
    'WWW-Authenticate': challenge,
  });
}

/** Middleware: `assertScopes` on the request's identity. */
export function requireScope(...anyOf: string[]): RequestHandler {
  if (anyOf.length === 0) throw new Error('requireScope needs at least one scope');
  return (req, _res, next) => {
    if (!req.identity) {
      next(new AuthenticationError());
      return;
    }
    try {
      assertScopes(req.identity, anyOf);
    } catch (err) {
      next(err);
      return;
    }
    next();
  };
}
