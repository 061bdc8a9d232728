// The catalog service: its own parts (the per-account reads, the operators' writes and import, the
// routes) on the shared assembly of @ordering/service (database, Kafka, readiness, outbox relay,
// HTTP, life cycle). The account tree comes from the customers service through CustomersDirectory
// (lineages cached for LINEAGE_CACHE_TTL_MS). `startCatalogService` runs it in-process (tests, e2e);
// start.ts runs it as the production process.
import { CustomersDirectory } from '@ordering/customers-client';
import { type AssembledService, type ServiceOptions, assembleService, startService } from '@ordering/service';
import { migrations } from '../migrations';
import type { CatalogConfig } from './config';
import { SEARCH_SESSION_SETTINGS } from './data-access/catalog-view-repository';
import type { Clock } from './domain/catalog-admin-use-case';
import type { AccountDirectory } from './domain/catalog-queries-use-case';
import { type UseCases, createUseCases, systemClock } from './domain/use-cases';
import { mountRoutes } from './entry-points/http/routes';

export interface CatalogServiceOptions extends ServiceOptions {
  clock?: Clock;
  /** The account directory; default CustomersDirectory over CUSTOMERS_URL. */
  directory?: AccountDirectory;
}

export type CatalogService = AssembledService<{ useCases: UseCases }>;

export function buildCatalogService(
  config: CatalogConfig,
  options: CatalogServiceOptions = {},
): Promise<CatalogService> {
  return assembleService(
    config,
    { ...options, migrations, sessionSettings: SEARCH_SESSION_SETTINGS },
    ({ knex }) => {
      const directory =
        options.directory ??
        new CustomersDirectory({
          baseUrl: config.CUSTOMERS_URL,
          secret: config.INTERNAL_IDENTITY_SECRET,
          caller: 'catalog',
          lineageTtlMs: config.LINEAGE_CACHE_TTL_MS,
        });
      const useCases = createUseCases(knex, directory, options.clock ?? systemClock);
      return {
        // Without Kafka the catalog still serves and changes: change messages wait in the outbox.
        outbox: true,
        bodyLimit: false,
        routes: (app) => mountRoutes(app, { useCases, identitySecret: config.INTERNAL_IDENTITY_SECRET }),
        parts: { useCases },
      };
    },
  );
}

/** Builds, migrates and starts the service in this process; `stop()` stops it and closes the pool. */
export const startCatalogService = (config: CatalogConfig, options: CatalogServiceOptions = {}) =>
  startService(buildCatalogService(config, options));
