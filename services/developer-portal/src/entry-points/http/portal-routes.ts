// Every route of the portal in order: assets, headers, the session, form parsing, CSRF on every
// POST, sign-in (open), the admin pages (signed in with admin:all), then HTML 404 and error pages.
import express, { type ErrorRequestHandler, type Express } from 'express';
import { AppError } from '@ordering/errors';
import { deliveryPages } from './delivery-pages';
import { oauthClientPages } from './oauth-client-pages';
import { checkCsrf, loadSession, requireAdmin, userOf, type PortalDeps } from './portal-context';
import { securityHeaders } from './security-headers';
import { signInRoutes } from './sign-in-routes';
import { ASSETS } from './views/assets';
import { messagePage } from './views/common-views';
import { webhookPages } from './webhook-pages';

export function mountPortalRoutes(app: Express, deps: PortalDeps): void {
  app.use(securityHeaders({ hsts: deps.cookieSecure }));
  app.get('/assets/:name', (req, res, next) => {
    const asset = ASSETS[req.path];
    if (!asset) {
      next();
      return;
    }
    res
      .set({ 'Content-Type': asset.type, 'Cache-Control': 'public, max-age=31536000, immutable' })
      .send(asset.body);
  });
  app.use(loadSession(deps));
  app.use(express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 100 }));
  app.use(checkCsrf(deps));
  app.use(signInRoutes(deps));
  const admin = requireAdmin();
  app.use(['/oauth-clients', '/webhooks'], admin);
  app.use(oauthClientPages(deps));
  app.use(webhookPages(deps));
  app.use(deliveryPages(deps));

  app.use((req, res) => {
    res
      .status(404)
      .send(
        messagePage({ title: 'Page not found', text: `There is no page at ${req.path}.`, user: userOf(req) }),
      );
  });
  const errors: ErrorRequestHandler = (err: unknown, req, res, _next) => {
    const status = err instanceof AppError ? err.status : (err as { status?: number }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      res
        .status(status)
        .send(
          messagePage({ title: 'This request was refused', text: (err as Error).message, user: userOf(req) }),
        );
      return;
    }
    deps.logger.error({ err }, 'portal page failed');
    res.status(500).send(
      messagePage({
        title: 'Something went wrong',
        text: 'The page could not be shown. Try again in a moment.',
        user: userOf(req),
      }),
    );
  };
  app.use(errors);
}
