export * from './config';
export * from './service';
export { catalogCommand } from './entry-points/cli/catalog-command';
export { CatalogAdminClient, CatalogAdminError } from './entry-points/cli/catalog-admin-client';
export { migrations } from '../migrations';
