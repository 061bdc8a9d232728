// The catalog service's migrations, in order (the outbox first, as its name sorts).
import type { Migration } from '@ordering/db';
import { outboxMigration } from '@ordering/messaging';
import { catalogMigration } from './catalog-migration';
import { nameSearchMigration } from './name-search-migration';

export const migrations: Migration[] = [outboxMigration, catalogMigration, nameSearchMigration];
