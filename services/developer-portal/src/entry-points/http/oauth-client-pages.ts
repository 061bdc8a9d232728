// OAuth clients: the list with due dates, and the rotation that shows the new secret once.
import { Router } from 'express';
import { apiFor, pageHandler, queryValue, takeFlash, userOf, type PortalDeps } from './portal-context';
import { newSecretPage, oauthClientsPage } from './views/oauth-client-views';

export function oauthClientPages(deps: PortalDeps): Router {
  const router = Router();

  router.get(
    '/oauth-clients',
    pageHandler(deps, async (req, res) => {
      const api = await apiFor(deps, req);
      const list = await api.listOAuthClients({
        limit: '100',
        starting_after: queryValue(req, 'starting_after'),
      });
      res.send(
        oauthClientsPage({
          user: userOf(req)!,
          clients: list.data,
          nextCursor: list.has_more ? list.next_cursor : null,
          flash: await takeFlash(deps, req),
        }),
      );
    }),
  );

  router.post(
    '/oauth-clients/:id/rotate-secret',
    pageHandler(deps, async (req, res) => {
      const api = await apiFor(deps, req);
      const client = await api.rotateOAuthClientSecret(String(req.params.id));
      res.send(
        newSecretPage({
          user: userOf(req)!,
          title: `New secret for ${client.name}`,
          what: `Client ${client.id}: the new secret is due on ${client.secret_due_at ?? '—'}.`,
          secret: client.client_secret,
          note: client.previous_secret_expires_at
            ? `The previous secret keeps working until ${client.previous_secret_expires_at}: switch your deployment before then.`
            : 'The previous secret has stopped working.',
          back: { href: '/oauth-clients', label: 'Back to the OAuth clients' },
        }),
      );
    }),
  );

  return router;
}
