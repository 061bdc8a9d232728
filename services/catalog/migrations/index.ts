// The catalog service's migrations, in order (the outbox first, as its name sorts).
import type { Migration } from '@ordering/db';
import { outboxMigration } from '@ordering/messaging';
import { catalogMigration } from './catalog-migration';
import { nameSearchMigration } from './name-search-migration';
import { nameWordsMigration } from './name-words-migration';
import { searchIndexPendingMigration } from './search-index-pending-migration';

export { SEARCH_GIN_INDEXES } from './search-index-pending-migration';

export const migrations: Migration[] = [
  outboxMigration,
  catalogMigration,
  nameSearchMigration,
  nameWordsMigration,
  searchIndexPendingMigration,
];
