// The customers service's migrations, in order (the messaging tables first, as their names sort).
import type { Migration } from '@ordering/db';
import { inboxMigration, outboxMigration } from '@ordering/messaging';
import { idempotencyMigration, idempotencyVerbatimResponseMigration } from '@ordering/idempotency';
import { accountsMigration } from './accounts-migration';
import { usersMigration } from './users-migration';
import { signInAttemptsMigration } from './sign-in-attempts-migration';

export const migrations: Migration[] = [
  outboxMigration,
  inboxMigration,
  accountsMigration,
  usersMigration,
  idempotencyMigration,
  idempotencyVerbatimResponseMigration,
  signInAttemptsMigration,
];
