// Consumes the customers service's user events: a deactivated shopper's tokens are revoked.
import type { Kafka } from 'kafkajs';
import type { Knex } from 'knex';
import { EVENT_TYPES, TOPICS } from '@ordering/contracts';
import { createConsumer, type ConsumerRunner, type MessagingLogger } from '@ordering/messaging';
import { deleteGrantsOfAccount } from '../../data-access/oidc-payload-repository';
import type { RevocationDeps } from '../../domain/revocation-use-case';
import { handleUserDeactivated } from '../../domain/user-deactivation-use-case';

export interface UserEventsConsumerOptions {
  kafka: Kafka;
  knex: Knex;
  groupId: string;
  revocation: RevocationDeps;
  logger: MessagingLogger;
  fromBeginning: boolean;
  maxWaitTimeMs?: number;
  sessionTimeoutMs?: number;
}

export function userEventsConsumer(options: UserEventsConsumerOptions): ConsumerRunner {
  return createConsumer({
    kafka: options.kafka,
    knex: options.knex,
    groupId: options.groupId,
    topics: [TOPICS.users],
    fromBeginning: options.fromBeginning,
    logger: options.logger,
    ...(options.maxWaitTimeMs === undefined ? {} : { maxWaitTimeMs: options.maxWaitTimeMs }),
    ...(options.sessionTimeoutMs === undefined ? {} : { sessionTimeoutMs: options.sessionTimeoutMs }),
    handlers: {
      [EVENT_TYPES.userDeactivated]: async (event, ctx) => {
        const { sub, grants } = await handleUserDeactivated(
          { revocation: options.revocation, deleteGrantsOfAccount: (s) => deleteGrantsOfAccount(ctx.trx, s) },
          event.data,
        );
        options.logger.info({ sub, grants: grants.length }, 'tokens of a deactivated shopper revoked');
      },
    },
  });
}
