// GET /v1/customers and /v1/customers/{cust_id}: the token's account and its descendants.
import { Router } from 'express';
import {
  identityOf,
  listEnvelope,
  optionalQuery,
  pageOf,
  parseListParams,
  pathParam,
  requestPath,
  requireScope,
} from '@ordering/http';
import type { UseCases } from '../../domain/use-cases';

export function customerRoutes(uc: UseCases): Router {
  const router = Router();
  const canRead = requireScope('orders:read', 'admin:all');

  router.get('/v1/customers', canRead, async (req, res) => {
    const identity = identityOf(req);
    const params = parseListParams(req.query, { cursor: { cust_id: 'text' } });
    const parentCustId = optionalQuery(req.query, 'parent_cust_id');
    const after = params.startingAfter?.cust_id;
    const rows = await uc.accountQueries.listWithinReach(identity.cust_id, {
      ...(parentCustId === undefined ? {} : { parentCustId }),
      ...(after === undefined ? {} : { afterCustId: after }),
      limit: params.limit + 1,
    });
    const page = pageOf(rows, params.limit, (c) => ({ cust_id: c.id }));
    res.json(listEnvelope(requestPath(req), page.data, page.hasMore, page.nextCursor));
  });

  router.get('/v1/customers/:cust_id', canRead, async (req, res) => {
    res.json(await uc.accountQueries.getWithinReach(identityOf(req).cust_id, pathParam(req, 'cust_id')));
  });

  return router;
}
