// Every HTTP route of the service and who may call it: `/v1` takes the identity the gateway
// forwards; `/internal` only identities with the `internal` scope (services, operators).
import type express from 'express';
import { INTERNAL_SCOPE, requireIdentity, requireScope } from '@ordering/http';
import type { UseCases } from '../../domain/use-cases';
import { adminRoutes } from './admin-routes';
import { catalogRoutes } from './catalog-routes';
import { internalRoutes } from './internal-routes';

export interface RouteDependencies {
  useCases: UseCases;
  identitySecret: string;
}

export function mountRoutes(app: express.Express, deps: RouteDependencies): void {
  app.use('/v1', requireIdentity(deps.identitySecret));
  app.use(catalogRoutes(deps.useCases.queries));
  app.use('/internal', requireIdentity(deps.identitySecret), requireScope(INTERNAL_SCOPE));
  app.use(internalRoutes(deps.useCases.queries));
  app.use(adminRoutes(deps.useCases));
}
