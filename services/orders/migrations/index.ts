// The orders service's migrations, in order (the messaging tables first, as their names sort).
import type { Migration } from '@ordering/db';
import { idempotencyMigration, idempotencyVerbatimResponseMigration } from '@ordering/idempotency';
import { inboxMigration, outboxMigration } from '@ordering/messaging';
import { orderApproversSubmittedMigration } from './order-approvers-submitted-migration';
import { ordersListIndexesMigration } from './orders-list-indexes-migration';
import { ordersMigration } from './orders-migration';

export const migrations: Migration[] = [
  outboxMigration,
  inboxMigration,
  idempotencyMigration,
  ordersMigration,
  idempotencyVerbatimResponseMigration,
  ordersListIndexesMigration,
  orderApproversSubmittedMigration,
];
