// Sign-in through the auth service (authorization code with PKCE, the portal's first-party client):
// the PKCE verifier, state and nonce wait in Redis under a short-lived cookie; the tokens go into the
// server-side session and never to the browser. Sign-out revokes the refresh token (its grant).
import { Router } from 'express';
import { newOpaqueId } from '../../data-access/session-store';
import { isAdmin, safeReturnPath } from '../../domain/session';
import {
  clearCookie,
  cookieNames,
  pageHandler,
  queryValue,
  readCookie,
  revokeQuietly,
  sessionOf,
  setCookie,
  userOf,
  type PortalDeps,
} from './portal-context';
import { homePage, messagePage } from './views/common-views';

export function signInRoutes(deps: PortalDeps): Router {
  const router = Router();
  const names = cookieNames(deps.cookieSecure);

  router.get('/', (req, res) => {
    const session = sessionOf(req)?.session;
    res.send(homePage(userOf(req), session ? isAdmin(session) : false));
  });

  router.get(
    '/sign-in',
    pageHandler(deps, async (req, res) => {
      const returnTo = safeReturnPath(queryValue(req, 'return_to'));
      const { pending, url } = await deps.auth.startSignIn(returnTo);
      setCookie(res, deps, names.signIn, await deps.sessions.createPending(pending), 600);
      res.redirect(303, url);
    }),
  );

  router.get(
    '/callback',
    pageHandler(deps, async (req, res) => {
      const pendingId = readCookie(req, names.signIn);
      const pending = pendingId ? await deps.sessions.takePending(pendingId) : undefined;
      clearCookie(res, deps, names.signIn);
      // The authorization server's error is shown only for this browser's sign-in in flight (its
      // state): a crafted link cannot put its own words on the portal's page.
      const error =
        pending && queryValue(req, 'state') === pending.state ? queryValue(req, 'error') : undefined;
      if (!pending || error || queryValue(req, 'error')) {
        res.status(error ? 403 : 400).send(
          messagePage({
            title: 'Signing in did not finish',
            text: error
              ? `The sign-in was refused (${error}${queryValue(req, 'error_description') ? `: ${queryValue(req, 'error_description')}` : ''}).`
              : 'This sign-in expired or was already used. Start again.',
            action: { href: '/sign-in', label: 'Sign in again' },
          }),
        );
        return;
      }
      let tokens;
      try {
        tokens = await deps.auth.finishSignIn(new URL(req.originalUrl, deps.publicUrl), pending);
      } catch (err) {
        deps.logger.warn({ err }, 'code exchange failed');
        res.status(400).send(
          messagePage({
            title: 'Signing in did not finish',
            text: 'The authorization server did not accept this sign-in. Start again.',
            action: { href: '/sign-in', label: 'Sign in again' },
          }),
        );
        return;
      }
      // A new session id at every sign-in (no fixation); the old session, if any, ends with its grant.
      const previous = sessionOf(req);
      if (previous)
        await revokeQuietly(deps, (await deps.sessions.take(previous.id))?.refreshToken, 'at a new sign-in');
      const id = await deps.sessions.create({ ...tokens, csrfToken: newOpaqueId() });
      setCookie(res, deps, names.session, id);
      res.redirect(303, pending.returnTo);
    }),
  );

  router.post('/sign-out', async (req, res) => {
    const ctx = sessionOf(req);
    // The stored session's refresh token: another request may have rotated the one loaded here.
    if (ctx) await revokeQuietly(deps, (await deps.sessions.take(ctx.id))?.refreshToken, 'at sign-out');
    clearCookie(res, deps, names.session);
    res.redirect(303, '/');
  });

  return router;
}
