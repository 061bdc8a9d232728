// The catalog's use cases over its stores, wired once per service.
import { type Clock, systemClock } from '@ordering/service';
import type { Knex } from 'knex';
import { CatalogAdminRepository } from '../data-access/catalog-admin-repository';
import { CatalogViewRepository } from '../data-access/catalog-view-repository';
import { ItemImportRepository } from '../data-access/item-import-repository';
import { BulkImport } from './bulk-import-use-case';
import { CatalogAdministration } from './catalog-admin-use-case';
import { type AccountDirectory, CatalogQueries } from './catalog-queries-use-case';

export interface UseCases {
  queries: CatalogQueries;
  admin: CatalogAdministration;
  bulkImport: BulkImport;
}

export function createUseCases(
  knex: Knex,
  directory: AccountDirectory,
  clock: Clock = systemClock,
  /** The pool the pricing read uses (see service.ts); default `knex`. */
  pricingKnex: Knex = knex,
): UseCases {
  const views = new CatalogViewRepository(knex);
  return {
    queries: new CatalogQueries(
      views,
      directory,
      pricingKnex === knex ? views : new CatalogViewRepository(pricingKnex),
    ),
    admin: new CatalogAdministration(new CatalogAdminRepository(knex), directory, clock),
    bulkImport: new BulkImport(new ItemImportRepository(knex), clock),
  };
}
