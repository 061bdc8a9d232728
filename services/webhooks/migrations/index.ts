// The webhooks service's migrations, in order.
import type { Migration } from '@ordering/db';
import { idempotencyMigration, idempotencyVerbatimResponseMigration } from '@ordering/idempotency';
import { inboxMigration } from '@ordering/messaging';
import { accountEventsMigration } from './account-events-migration';
import { deliveryListIndexesMigration } from './delivery-list-indexes-migration';
import { deliveryReplayCountMigration } from './delivery-replay-count-migration';
import { deliveryTraceMigration } from './delivery-trace-migration';
import { webhooksMigration } from './webhooks-migration';

export const migrations: Migration[] = [
  inboxMigration,
  accountEventsMigration,
  idempotencyMigration,
  webhooksMigration,
  deliveryTraceMigration,
  idempotencyVerbatimResponseMigration,
  deliveryListIndexesMigration,
  deliveryReplayCountMigration,
];
