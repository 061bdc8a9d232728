// Internal routes (never routed by the gateway): what the service has received, for operators.
import type express from 'express';
import { NotFoundError } from '@ordering/errors';
import { INTERNAL_SCOPE, requireIdentity, requireScope } from '@ordering/http';
import type { AccountEventRepository } from '../../data-access/account-event-repository';

export function mountRoutes(
  app: express.Express,
  deps: { events: AccountEventRepository; identitySecret: string },
): void {
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
