// Every HTTP route of the service: `/v1/webhooks` takes the identity the gateway forwards;
// `/internal` (never routed by the gateway) what the service has received, for operators.
import type express from 'express';
import type { IdempotencyStore } from '@ordering/idempotency';
import { NotFoundError } from '@ordering/errors';
import { INTERNAL_SCOPE, requireIdentity, requireScope } from '@ordering/http';
import type { AccountEventRepository } from '../../data-access/account-event-repository';
import type { DeliveriesUseCase } from '../../domain/deliveries-use-case';
import type { SubscriptionsUseCase } from '../../domain/subscriptions-use-case';
import { webhookRoutes } from './webhook-routes';

export function mountRoutes(
  app: express.Express,
  deps: {
    events: AccountEventRepository;
    subscriptions: SubscriptionsUseCase;
    deliveries: DeliveriesUseCase;
    idempotency: IdempotencyStore;
    identitySecret: string;
  },
): void {
  app.use('/v1', requireIdentity(deps.identitySecret));
  app.use(webhookRoutes(deps));
  app.get(
    '/internal/v1/events/:event_id',
    requireIdentity(deps.identitySecret),
    requireScope(INTERNAL_SCOPE),
    async (req, res) => {
      const recorded = await deps.events.find(String(req.params.event_id));
      if (!recorded) throw new NotFoundError('No such event', 'event_id');
      res.json({
        object: 'recorded_event',
        event: recorded.event,
        trace_id: recorded.traceId,
        received_at: recorded.receivedAt,
      });
    },
  );
}
