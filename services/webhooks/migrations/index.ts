// The webhooks service's migrations, in order.
import type { Migration } from '@ordering/db';
import { inboxMigration } from '@ordering/messaging';
import { accountEventsMigration } from './account-events-migration';

export const migrations: Migration[] = [inboxMigration, accountEventsMigration];
