// Every HTTP route of the service and who may call it: `/v1` and `/scim/v2` take the identity the
// gateway forwards; `/internal` only identities with the `internal` scope (services, operators).
import type express from 'express';
import { INTERNAL_SCOPE, errorHandlerUnder, requireIdentity, requireScope } from '@ordering/http';
import type { IdempotencyStore } from '@ordering/idempotency';
import type { UseCases } from '../../domain/use-cases';
import { adminRoutes } from './admin-routes';
import { customerRoutes } from './customer-routes';
import { internalRoutes } from './internal-routes';
import { scimErrors, scimRoutes } from './scim-routes';
import { userRoutes } from './user-routes';

export interface RouteDependencies {
  useCases: UseCases;
  idempotency: IdempotencyStore;
  identitySecret: string;
  scimBaseUrl?: string;
}

export function mountRoutes(app: express.Express, deps: RouteDependencies): void {
  // First: other services call `/internal` on every order, so its requests should not walk past
  // the public routes. The prefixes are disjoint (`/internal`, `/v1`, `/scim/v2`) and no router
  // has a middleware without a path, so the order changes no answer, unknown paths included.
  app.use('/internal', requireIdentity(deps.identitySecret), requireScope(INTERNAL_SCOPE));
  app.use(internalRoutes(deps.useCases));
  app.use(adminRoutes(deps.useCases));
  app.use('/v1', requireIdentity(deps.identitySecret));
  app.use(customerRoutes(deps.useCases));
  app.use(userRoutes(deps.useCases, deps.idempotency));
  app.use(
    scimRoutes(deps.useCases, {
      identitySecret: deps.identitySecret,
      ...(deps.scimBaseUrl ? { baseUrl: deps.scimBaseUrl } : {}),
    }),
  );
  app.use(errorHandlerUnder('/scim/v2', scimErrors));
}
