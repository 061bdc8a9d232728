// What every page handler needs: the session behind the cookie, CSRF checks on every form, a fresh
// access token for the API, and one place that turns failures into pages.
import { timingSafeEqual } from 'node:crypto';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Logger } from '@ordering/http';
import { type AuthServer, RefreshRefusedError } from '../../data-access/auth-server';
import { ApiError, type AdminApi, type PlatformApi } from '../../data-access/platform-api';
import type { SessionStore } from '../../data-access/session-store';
import { type FlashMessage, isAdmin, needsRefresh, type PortalSession } from '../../domain/session';
import { messagePage } from './views/common-views';
import type { PageUser } from './views/layout';

export interface PortalDeps {
  sessions: SessionStore;
  auth: AuthServer;
  api: PlatformApi;
  logger: Logger;
  publicUrl: string;
  cookieSecure: boolean;
}

const SESSION_COOKIE = 'portal_session';
const SIGN_IN_COOKIE = 'portal_sign_in';

export function cookieNames(secure: boolean) {
  // `__Host-`: only set over https, by this host, for every path: no subdomain can plant one.
  return secure
    ? { session: `__Host-${SESSION_COOKIE}`, signIn: `__Host-${SIGN_IN_COOKIE}` }
    : { session: SESSION_COOKIE, signIn: SIGN_IN_COOKIE };
}

export function readCookie(req: Request, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    if (part.slice(0, i).trim() === name) return part.slice(i + 1).trim();
  }
  return undefined;
}

export function setCookie(
  res: Response,
  deps: PortalDeps,
  name: string,
  value: string,
  maxAgeSeconds?: number,
) {
  res.cookie(name, value, {
    httpOnly: true,
    secure: deps.cookieSecure,
    sameSite: 'lax',
    path: '/',
    ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds * 1000 }),
  });
}

export function clearCookie(res: Response, deps: PortalDeps, name: string) {
  res.clearCookie(name, { httpOnly: true, secure: deps.cookieSecure, sameSite: 'lax', path: '/' });
}

/** The request's session, when it has one. */
export interface SessionContext {
  id: string;
  session: PortalSession;
}

const contexts = new WeakMap<Request, SessionContext>();

/** The session of this request, set by `loadSession`. */
export function sessionOf(req: Request): SessionContext | undefined {
  return contexts.get(req);
}

/** Loads the session of the cookie (if any); `sessionOf(req)` gives it. */
export function loadSession(deps: PortalDeps): RequestHandler {
  const names = cookieNames(deps.cookieSecure);
  return async (req, _res, next) => {
    const id = readCookie(req, names.session);
    if (id) {
      const session = await deps.sessions.find(id);
      if (session) contexts.set(req, { id, session });
    }
    next();
  };
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Every POST: it must come from this portal's own pages. The Origin (when the browser sends it) is
 * this portal's, and the form's `csrf_token` is the session's synchroniser token; otherwise 403.
 */
export function checkCsrf(deps: PortalDeps): RequestHandler {
  const origin = new URL(deps.publicUrl).origin;
  return (req, res, next) => {
    if (req.method !== 'POST') {
      next();
      return;
    }
    const session = sessionOf(req)?.session;
    // Signing out of a session that already ended (idle timeout, another tab) has nothing to
    // protect: the sign-out clears the cookie rather than answer "this form has expired".
    if (!session && req.path === '/sign-out') {
      next();
      return;
    }
    const sentOrigin = req.headers.origin;
    const token = (req.body as Record<string, unknown> | undefined)?.csrf_token;
    const ok =
      (sentOrigin === undefined || sentOrigin === origin) &&
      session !== undefined &&
      typeof token === 'string' &&
      sameToken(token, session.csrfToken);
    if (ok) {
      next();
      return;
    }
    res.status(403).send(
      messagePage({
        title: 'This form has expired',
        text: 'The form was not sent from a page of this portal in your current session. Go back, reload the page and try again.',
        user: userOf(req),
      }),
    );
  };
}

export function userOf(req: Request): PageUser | undefined {
  const s = sessionOf(req)?.session;
  return s ? { name: s.name, login: s.login, custId: s.custId, csrfToken: s.csrfToken } : undefined;
}

/** Signed in with `admin:all`; otherwise the sign-in (GET) or a page that says why not (403). */
export function requireAdmin(): RequestHandler {
  return (req, res, next) => {
    const session = sessionOf(req)?.session;
    if (!session) {
      if (req.method === 'GET')
        res.redirect(303, `/sign-in?return_to=${encodeURIComponent(req.originalUrl)}`);
      else res.redirect(303, '/sign-in');
      return;
    }
    if (!isAdmin(session)) {
      res.status(403).send(
        messagePage({
          title: 'Administrators only',
          text: `You are signed in as ${session.login}, whose role does not allow managing webhooks and OAuth clients. Ask an administrator of ${session.custId} to do it, or sign out and sign in as an administrator.`,
          user: userOf(req),
        }),
      );
      return;
    }
    next();
  };
}

type FreshTokens = Pick<PortalSession, 'accessToken' | 'accessTokenExpiresAt' | 'refreshToken' | 'scopes'>;

/** The token fields of a session (or of a refresh's answer), and nothing else. */
function tokensOf(t: FreshTokens): FreshTokens {
  return {
    accessToken: t.accessToken,
    accessTokenExpiresAt: t.accessTokenExpiresAt,
    refreshToken: t.refreshToken,
    scopes: t.scopes,
  };
}

/** Refreshes in flight in this process, by session id: one refresh per session at a time. */
const refreshing = new Map<string, Promise<FreshTokens>>();

/** How long one replica may hold a session's refresh (the auth call's timeout and some). */
const REFRESH_LOCK_MS = 15_000;
const REFRESH_POLL_MS = 50;

/**
 * New tokens for this session. The auth service rotates refresh tokens and treats a second use of
 * one as theft (it revokes the whole grant), so two requests of one session near expiry (two tabs, a
 * double click), in this process or in two replicas, must not both refresh. In a process they share
 * one refresh; across replicas a lock in Redis lets one refresh while the others wait for the
 * tokens it stores. A session already refreshed by another request is not refreshed again.
 */
function refreshOnce(deps: PortalDeps, ctx: SessionContext): Promise<FreshTokens> {
  let flight = refreshing.get(ctx.id);
  if (!flight) {
    flight = refreshAcrossReplicas(deps, ctx.id).finally(() => refreshing.delete(ctx.id));
    refreshing.set(ctx.id, flight);
  }
  return flight;
}

async function refreshAcrossReplicas(deps: PortalDeps, id: string): Promise<FreshTokens> {
  const giveUpAt = Date.now() + REFRESH_LOCK_MS;
  for (;;) {
    const release = await deps.sessions.lockRefresh(id, REFRESH_LOCK_MS);
    if (release) {
      try {
        return await refreshStored(deps, id);
      } finally {
        await release();
      }
    }
    // Another replica refreshes this session: its tokens appear in the stored session.
    await new Promise((resolve) => setTimeout(resolve, REFRESH_POLL_MS));
    const stored = await deps.sessions.find(id);
    if (!stored) throw new ApiError(401, { message: 'session ended' });
    if (!needsRefresh(stored)) return tokensOf(stored);
    // Not a 401: that would end a session another replica may be refreshing right now.
    if (Date.now() > giveUpAt) throw new ApiError(503, { message: 'the session could not be refreshed' });
  }
}

/** Under the session's refresh lock: refreshes the stored session unless that was done already. */
async function refreshStored(deps: PortalDeps, id: string): Promise<FreshTokens> {
  const stored = await deps.sessions.find(id);
  // Signed out (or ended) meanwhile: no refresh, and no saving that would bring the session back.
  if (!stored) throw new ApiError(401, { message: 'session ended' });
  if (!needsRefresh(stored)) return tokensOf(stored);
  const refreshToken = stored.refreshToken;
  if (!refreshToken) throw new ApiError(401, { message: 'session expired' });
  let fresh;
  try {
    fresh = await deps.auth.refresh(refreshToken);
  } catch (err) {
    if (err instanceof RefreshRefusedError) {
      deps.logger.info({ err }, 'refresh refused: the session ends');
      throw new ApiError(401, { message: 'session expired' });
    }
    // Auth unreachable, restarting or limiting: the session and its refresh token are kept, and the
    // next request tries again (ending it would sign the user out for a blip).
    deps.logger.warn({ err }, 'refresh failed for now: the session is kept');
    throw new ApiError(503, {
      message: 'the session could not be refreshed just now; try again in a moment',
    });
  }
  const tokens = tokensOf({ ...fresh, refreshToken: fresh.refreshToken ?? refreshToken });
  if (!(await deps.sessions.save(id, { ...stored, ...tokens }))) {
    // Signed out while the refresh ran: the new grant ends with it.
    await revokeQuietly(deps, tokens.refreshToken, 'after a sign-out during a refresh');
    throw new ApiError(401, { message: 'session ended' });
  }
  return tokens;
}

/** Revokes a session's refresh token (its grant); a failure is logged, not shown. */
export async function revokeQuietly(deps: PortalDeps, refreshToken: string | undefined, when: string) {
  if (!refreshToken) return;
  await deps.auth.revoke(refreshToken).catch((err: unknown) => {
    deps.logger.warn({ err }, `refresh token revocation failed ${when}`);
  });
}

/** The API as the signed-in admin, refreshing the access token first when it is about to expire. */
export async function apiFor(deps: PortalDeps, req: Request): Promise<AdminApi> {
  const ctx = sessionOf(req);
  if (!ctx) throw new ApiError(401, { message: 'not signed in' });
  const { session } = ctx;
  if (needsRefresh(session)) {
    Object.assign(session, await refreshOnce(deps, ctx));
    if (!isAdmin(session)) throw new ApiError(403, { message: 'admin:all is no longer granted' });
  }
  return deps.api.as(session.accessToken);
}

/** A message for the next page (after a redirect). */
export async function flash(deps: PortalDeps, req: Request, kind: FlashMessage['kind'], text: string) {
  const ctx = sessionOf(req);
  if (ctx) await deps.sessions.setFlash(ctx.id, { kind, text });
}

/** Takes the pending message, if any. */
export async function takeFlash(deps: PortalDeps, req: Request): Promise<FlashMessage | undefined> {
  const ctx = sessionOf(req);
  return ctx ? deps.sessions.takeFlash(ctx.id) : undefined;
}

/** A page handler: API failures become pages (401: sign in again; 403, 404 and the rest: a page). */
export function pageHandler(
  deps: PortalDeps,
  handler: (req: Request, res: Response) => Promise<void>,
): (req: Request, res: Response, next: NextFunction) => void {
  return (req, res, next) => {
    handler(req, res).catch(async (err: unknown) => {
      if (!(err instanceof ApiError)) {
        next(err);
        return;
      }
      if (err.status === 401) {
        const ctx = sessionOf(req);
        if (ctx)
          await revokeQuietly(deps, (await deps.sessions.take(ctx.id))?.refreshToken, 'as the session ended');
        clearCookie(res, deps, cookieNames(deps.cookieSecure).session);
        res.redirect(
          303,
          req.method === 'GET' ? `/sign-in?return_to=${encodeURIComponent(req.originalUrl)}` : '/sign-in',
        );
        return;
      }
      const title =
        err.status === 404
          ? 'Not found'
          : err.status === 403
            ? 'Not allowed'
            : err.status === 429
              ? 'Too many requests'
              : err.status === 409 || err.status === 422
                ? 'This request was refused'
                : 'Something went wrong';
      const status = [403, 404, 409, 422, 429].includes(err.status) ? err.status : 502;
      res.status(status).send(
        messagePage({
          title,
          text:
            err.status >= 500
              ? `The platform could not answer (${err.status}${err.body.code ? ` ${err.body.code}` : ''}). Try again in a moment.`
              : (err.body.message ?? title),
          user: userOf(req),
        }),
      );
    });
  };
}

/** A string field of a posted form ('' when absent). */
export function field(req: Request, name: string): string {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : '';
}

/** The values of a repeated field (checkboxes). */
export function fields(req: Request, name: string): string[] {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return typeof value === 'string' ? [value] : [];
}

export function queryValue(req: Request, name: string): string | undefined {
  const value = req.query[name];
  return typeof value === 'string' && value !== '' ? value : undefined;
}
