// /v1/webhooks: the subscriptions of the token's account and their deliveries (scope `admin:all`;
// the gateway checks it too). Every subscription belongs to the token's own account.
import { Router, type Request } from 'express';
import {
  ALL_EVENT_TYPES,
  CreateWebhookRequest,
  ReplayWebhookDeliveriesRequest,
  UpdateWebhookRequest,
  WEBHOOK_DELIVERY_STATUSES,
} from '@ordering/contracts';
import { InputError } from '@ordering/errors';
import {
  ADMIN_SCOPE,
  assertEmptyBody,
  identityOf,
  listEnvelope,
  optionalEnumQuery,
  optionalTimestampQuery,
  pageOf,
  parseBody,
  parseListParams,
  pathParam,
  requestPath,
  requireScope,
} from '@ordering/http';
import { type IdempotencyStore, respondIdempotently } from '@ordering/idempotency';
import type { DeliveriesUseCase } from '../../domain/deliveries-use-case';
import { deliveryResource, subscriptionResource } from '../../domain/resources';
import type { SubscriptionsUseCase } from '../../domain/subscriptions-use-case';

export function webhookRoutes(deps: {
  subscriptions: SubscriptionsUseCase;
  deliveries: DeliveriesUseCase;
  idempotency: IdempotencyStore;
}): Router {
  const router = Router();
  const admin = requireScope(ADMIN_SCOPE);
  const account = (req: Request) => identityOf(req).cust_id;
  const uc = deps.subscriptions;

  router.get('/v1/webhooks', admin, async (req, res) => {
    const params = parseListParams(req.query, { cursor: { id: 'id' } });
    const after = params.startingAfter?.id;
    const rows = await uc.list(account(req), {
      ...(after === undefined ? {} : { afterId: after }),
      limit: params.limit + 1,
    });
    const page = pageOf(rows, params.limit, (s) => ({ id: s.id }));
    res.json(
      listEnvelope(
        requestPath(req),
        page.data.map((s) => subscriptionResource(s)),
        page.hasMore,
        page.nextCursor,
      ),
    );
  });

  // The answers that show a signing secret are never to be stored by a cache (as the auth
  // service's client secrets and tokens): `no-store`, replays of the creation included.
  router.post('/v1/webhooks', admin, async (req, res) => {
    res.set('Cache-Control', 'no-store');
    await respondIdempotently(
      deps.idempotency,
      req,
      res,
      async (complete) => {
        const input = parseBody(CreateWebhookRequest, req.body);
        const { row, secret } = await uc.create(account(req), input, async (trx, created, s) =>
          complete?.(trx, { status: 201, body: subscriptionResource(created, s) }),
        );
        return { status: 201, body: subscriptionResource(row, secret) };
      },
      uc.storedCreation,
    );
  });

  router.get('/v1/webhooks/:id', admin, async (req, res) => {
    res.json(subscriptionResource(await uc.get(account(req), pathParam(req, 'id'))));
  });

  router.patch('/v1/webhooks/:id', admin, async (req, res) => {
    const changes = parseBody(UpdateWebhookRequest, req.body);
    res.json(subscriptionResource(await uc.update(account(req), pathParam(req, 'id'), changes)));
  });

  router.delete('/v1/webhooks/:id', admin, async (req, res) => {
    const id = pathParam(req, 'id');
    await uc.remove(account(req), id);
    res.json({ id, object: 'webhook_subscription', deleted: true });
  });

  router.post('/v1/webhooks/:id/rotate_secret', admin, async (req, res) => {
    assertEmptyBody(req);
    const { row, secret } = await uc.rotateSecret(account(req), pathParam(req, 'id'));
    res.set('Cache-Control', 'no-store').json(subscriptionResource(row, secret));
  });

  router.post('/v1/webhooks/:id/test', admin, async (req, res) => {
    assertEmptyBody(req);
    const delivery = await uc.sendTest(account(req), pathParam(req, 'id'));
    res.status(202).json(deliveryResource(delivery, []));
  });

  router.get('/v1/webhooks/:id/deliveries', admin, async (req, res) => {
    const params = parseListParams(req.query, { cursor: { created_at: 'timestamp', id: 'id' } });
    const status = optionalEnumQuery(req.query, 'status', WEBHOOK_DELIVERY_STATUSES);
    const eventType = optionalEnumQuery(req.query, 'event_type', ALL_EVENT_TYPES);
    const createdAfter = optionalTimestampQuery(req.query, 'created_after');
    const createdBefore = optionalTimestampQuery(req.query, 'created_before');
    const cursor = params.startingAfter;
    const rows = await deps.deliveries.list(account(req), pathParam(req, 'id'), {
      ...(status ? { status } : {}),
      ...(eventType ? { eventType } : {}),
      ...(createdAfter ? { createdAfter } : {}),
      ...(createdBefore ? { createdBefore } : {}),
      ...(cursor ? { before: { createdAt: cursor.created_at, id: cursor.id } } : {}),
      limit: params.limit + 1,
    });
    const page = pageOf(rows, params.limit, (d) => ({
      created_at: d.row.created_at.toISOString(),
      id: d.row.id,
    }));
    res.json(
      listEnvelope(
        requestPath(req),
        page.data.map((d) => deliveryResource(d.row, d.attempts)),
        page.hasMore,
        page.nextCursor,
      ),
    );
  });

  router.get('/v1/webhooks/:id/deliveries/:delivery_id', admin, async (req, res) => {
    const d = await deps.deliveries.get(account(req), pathParam(req, 'id'), pathParam(req, 'delivery_id'));
    res.json(deliveryResource(d.row, d.attempts));
  });

  router.post('/v1/webhooks/:id/deliveries/:delivery_id/replay', admin, async (req, res) => {
    assertEmptyBody(req);
    const d = await deps.deliveries.replay(account(req), pathParam(req, 'id'), pathParam(req, 'delivery_id'));
    res.status(202).json(deliveryResource(d.row, d.attempts));
  });

  router.post('/v1/webhooks/:id/replay', admin, async (req, res) => {
    const input = parseBody(ReplayWebhookDeliveriesRequest, req.body);
    const since = new Date(input.since);
    const until = input.until ? new Date(input.until) : new Date();
    if (until.getTime() <= since.getTime()) throw new InputError('until must be after since', 'until');
    const dryRun = input.dry_run ?? false;
    const count = await deps.deliveries.replayRange(account(req), pathParam(req, 'id'), {
      since,
      until,
      dryRun,
    });
    res.json({ object: 'webhook_replay', count, dry_run: dryRun });
  });

  return router;
}
