// The approvals service's migrations, in order (the messaging tables first, as their names sort).
import type { Migration } from '@ordering/db';
import { inboxMigration, outboxMigration } from '@ordering/messaging';
import { approvalsMigration } from './approvals-migration';

export const migrations: Migration[] = [outboxMigration, inboxMigration, approvalsMigration];
