// Every HTTP route of the service and who may call it: `/v1` takes the identity the gateway
// forwards; `/internal` only identities with the `internal` scope (other services).
import type express from 'express';
import { INTERNAL_SCOPE, requireIdentity, requireScope } from '@ordering/http';
import type { IdempotencyStore } from '@ordering/idempotency';
import type { UseCases } from '../../domain/use-cases';
import { internalRoutes } from './internal-routes';
import { orderRoutes } from './order-routes';

export function mountRoutes(
  app: express.Express,
  deps: { useCases: UseCases; idempotency: IdempotencyStore; identitySecret: string },
): void {
  app.use('/v1', requireIdentity(deps.identitySecret));
  app.use(orderRoutes(deps.useCases, deps.idempotency));
  app.use('/internal', requireIdentity(deps.identitySecret), requireScope(INTERNAL_SCOPE));
  app.use(internalRoutes(deps.useCases));
}
