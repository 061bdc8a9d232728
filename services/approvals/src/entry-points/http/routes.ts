// Every HTTP route of the service and who may call it: `/v1` takes the identity the gateway
// forwards; `/internal` only identities with the `internal` scope (other services).
import type express from 'express';
import { Router } from 'express';
import { INTERNAL_SCOPE, pathParam, requireIdentity, requireScope } from '@ordering/http';
import { NotFoundError } from '@ordering/errors';
import type { UseCases } from '../../domain/use-cases';
import { approvalRoutes } from './approval-routes';

function internalRoutes(uc: UseCases): Router {
  const router = Router();
  router.get('/internal/v1/customers/:cust_id/effective_approval_chain', async (req, res) => {
    const chain = await uc.chains.effective(pathParam(req, 'cust_id'));
    if (!chain) throw new NotFoundError('No such customer', 'cust_id');
    res.json(chain);
  });
  return router;
}

export function mountRoutes(
  app: express.Express,
  deps: { useCases: UseCases; identitySecret: string },
): void {
  app.use('/v1', requireIdentity(deps.identitySecret));
  app.use(approvalRoutes(deps.useCases));
  app.use('/internal', requireIdentity(deps.identitySecret), requireScope(INTERNAL_SCOPE));
  app.use(internalRoutes(deps.useCases));
}
