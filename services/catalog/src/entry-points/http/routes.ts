// Every HTTP route of the service and who may call it: `/v1` takes the identity the gateway
// forwards; `/internal` only identities with the `internal` scope (services, operators).
import type express from 'express';
import { INTERNAL_SCOPE, jsonBody, requireIdentity, requireScope } from '@ordering/http';
import type { UseCases } from '../../domain/use-cases';
import { ADMIN_IMPORT_PATH, IMPORT_BODY_LIMIT, adminRoutes } from './admin-routes';
import { catalogRoutes } from './catalog-routes';
import { internalRoutes } from './internal-routes';

export interface RouteDependencies {
  useCases: UseCases;
  identitySecret: string;
}

/** The service mounts its own JSON parsers (assembly `bodyLimit: false`): 1 MB, more for an import. */
export function mountRoutes(app: express.Express, deps: RouteDependencies): void {
  app.use(ADMIN_IMPORT_PATH, jsonBody({ limit: IMPORT_BODY_LIMIT }));
  app.use(jsonBody({ limit: '1mb' }));
  app.use('/v1', requireIdentity(deps.identitySecret));
  app.use(catalogRoutes(deps.useCases.queries));
  app.use('/internal', requireIdentity(deps.identitySecret), requireScope(INTERNAL_SCOPE));
  app.use(internalRoutes(deps.useCases.queries));
  app.use(adminRoutes(deps.useCases));
}
