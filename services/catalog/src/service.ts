// The catalog service: its own parts (the per-account reads, the operators' writes and import, the
// routes) on the shared assembly of @ordering/service (database, Kafka, readiness, outbox relay,
// HTTP, life cycle). The account tree comes from the customers service through CustomersDirectory
// (lineages cached for LINEAGE_CACHE_TTL_MS). `startCatalogService` runs it in-process (tests, e2e);
// start.ts runs it as the production process.
import { CustomersDirectory } from '@ordering/customers-client';
import { createKnex } from '@ordering/db';
import {
  type AssembledService,
  type Clock,
  type ServiceOptions,
  assembleService,
  startService,
  systemClock,
} from '@ordering/service';
import { migrations } from '../migrations';
import type { CatalogConfig } from './config';
import { SEARCH_SESSION_SETTINGS } from './data-access/catalog-view-repository';
import type { AccountDirectory } from './domain/catalog-queries-use-case';
import { type UseCases, createUseCases } from './domain/use-cases';
import { mountRoutes } from './entry-points/http/routes';

export interface CatalogServiceOptions extends ServiceOptions {
  clock?: Clock;
  /** The account directory; default CustomersDirectory over CUSTOMERS_URL. */
  directory?: AccountDirectory;
}

export type CatalogService = AssembledService<{ useCases: UseCases }>;

/** Connections of the pricing read's own pool (one statement, about a millisecond each). */
const PRICING_POOL_MAX = 4;

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
      // The pricing read of every order on sessions of its own that plan it once: PostgreSQL kept
      // choosing a custom plan for it (0.33 to 0.48 ms of planning per order against 0.12 ms of
      // running); `plan_cache_mode` is per session, and the search's statements must keep theirs.
      const pricingKnex = createKnex({
        url: config.DATABASE_URL,
        service: 'catalog-pricing',
        pool: { max: PRICING_POOL_MAX },
        sessionSettings: { ...SEARCH_SESSION_SETTINGS, plan_cache_mode: 'force_generic_plan' },
      });
      const useCases = createUseCases(knex, directory, options.clock ?? systemClock, pricingKnex);
      return {
        close: () => pricingKnex.destroy(),
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
