// /v1/orders: place (idempotent), read, list, cancel. Each route parses its input and calls one use case.
import type { Request } from 'express';
import { Router } from 'express';
import { CancelOrderRequest, CreateOrderRequest, ORDER_STATUSES } from '@ordering/contracts';
import {
  identityOf,
  listEnvelope,
  optionalBody,
  optionalEnumQuery,
  optionalQuery,
  optionalTimestampQuery,
  pageOf,
  parseBody,
  parseListParams,
  pathParam,
  requestPath,
  requireScope,
} from '@ordering/http';
import { type IdempotencyStore, respondIdempotently } from '@ordering/idempotency';
import type { Actor } from '../../domain/ports';
import type { UseCases } from '../../domain/use-cases';

export const actorOf = (req: Request): Actor => {
  const identity = identityOf(req);
  return { custId: identity.cust_id, login: identity.login, scopes: identity.scopes };
};

export function orderRoutes(uc: UseCases, idempotency: IdempotencyStore): Router {
  const router = Router();
  const canRead = requireScope('orders:read');
  const canWrite = requireScope('orders:write');

  router.post('/v1/orders', canWrite, async (req, res) => {
    await respondIdempotently(idempotency, req, res, async (complete) => {
      const draft = parseBody(CreateOrderRequest, req.body);
      // Without an Idempotency-Key there is no record to write with the order: the order, its lines
      // and its events then go in one statement, no transaction around it.
      const order = await uc.placing.place(
        actorOf(req),
        draft,
        complete
          ? {
              beforeCommit: (scope, placed) =>
                complete(scope.trx, { status: 201, body: placed.toResource() }),
            }
          : {},
      );
      return { status: 201, body: order.toResource() };
    });
  });

  router.get('/v1/orders', canRead, async (req, res) => {
    const params = parseListParams(req.query, { cursor: { t: 'timestamp', id: 'id' } });
    const custId = optionalQuery(req.query, 'cust_id');
    const status = optionalEnumQuery(req.query, 'status', ORDER_STATUSES);
    const createdAfter = optionalTimestampQuery(req.query, 'created_after');
    const after = params.startingAfter;
    const orders = await uc.queries.list(actorOf(req), {
      ...(custId === undefined ? {} : { custId }),
      ...(status === undefined ? {} : { status }),
      ...(createdAfter === undefined ? {} : { createdAfter }),
      ...(after ? { after: { submittedAt: after.t, id: after.id } } : {}),
      limit: params.limit + 1,
    });
    const page = pageOf(orders, params.limit, (o) => ({ t: o.state.submitted_at.toISOString(), id: o.id }));
    res.json(
      listEnvelope(
        requestPath(req),
        page.data.map((o) => o.toResource()),
        page.hasMore,
        page.nextCursor,
      ),
    );
  });

  router.get('/v1/orders/:id', canRead, async (req, res) => {
    res.json((await uc.queries.get(actorOf(req), pathParam(req, 'id'))).toResource());
  });

  router.post('/v1/orders/:id/cancel', canWrite, async (req, res) => {
    const { reason } = parseBody(CancelOrderRequest, optionalBody(req));
    const order = await uc.queries.cancel(actorOf(req), pathParam(req, 'id'), reason ?? null);
    res.json(order.toResource());
  });

  return router;
}
