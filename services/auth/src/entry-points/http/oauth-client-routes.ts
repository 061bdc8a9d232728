// /v1/oauth_clients: the OAuth clients of the token's account tree, for its admins (`admin:all`),
// reached through the gateway with the signed identity header. Never a secret but the new one of
// a rotation.
import { Router, type Request } from 'express';
import {
  assertEmptyBody,
  assertSafeQuery,
  identityOf,
  listEnvelope,
  pageOf,
  parseListParams,
  pathParam,
  refuseOtherMediaTypes,
  requestPath,
  requireIdentity,
  requireScope,
} from '@ordering/http';
import {
  getAccountClient,
  listAccountClients,
  oauthClientView,
  rotateAccountClientSecret,
  type AccountClientsDeps,
} from '../../domain/account-clients-use-case';

export function oauthClientRoutes(deps: AccountClientsDeps & { identitySecret: string }): Router {
  const router = Router();
  const actorOf = (req: Request) => ({ custId: identityOf(req).cust_id });
  router.use(
    '/v1/oauth_clients',
    requireIdentity(deps.identitySecret),
    requireScope('admin:all'),
    (req, _res, next) => {
      assertSafeQuery(req.query);
      next();
    },
    // This app passes bodies of other media types on unparsed (its OAuth endpoints read forms,
    // `otherMediaTypes: 'pass'`): here a body that is not JSON is 415 as at every service, never
    // read as no body (a form's `expires_in=1` dropped unseen while the secret rotates).
    refuseOtherMediaTypes(),
  );

  router.get('/v1/oauth_clients', async (req, res) => {
    const params = parseListParams(req.query, { cursor: { id: 'text' } });
    const after = params.startingAfter?.id;
    const rows = await listAccountClients(deps, actorOf(req), {
      ...(after === undefined ? {} : { afterClientId: after }),
      limit: params.limit + 1,
    });
    const page = pageOf(rows, params.limit, (c) => ({ id: c.clientId }));
    const now = deps.now();
    res.set('Cache-Control', 'no-store').json(
      listEnvelope(
        requestPath(req),
        page.data.map((c) => oauthClientView(c, now)),
        page.hasMore,
        page.nextCursor,
      ),
    );
  });

  router.get('/v1/oauth_clients/:id', async (req, res) => {
    const client = await getAccountClient(deps, actorOf(req), pathParam(req, 'id'));
    res.set('Cache-Control', 'no-store').json(oauthClientView(client, deps.now()));
  });

  router.post('/v1/oauth_clients/:id/rotate_secret', async (req, res) => {
    assertEmptyBody(req);
    const { client, secret } = await rotateAccountClientSecret(deps, actorOf(req), pathParam(req, 'id'));
    res.set('Cache-Control', 'no-store').json(oauthClientView(client, deps.now(), secret));
  });

  return router;
}
