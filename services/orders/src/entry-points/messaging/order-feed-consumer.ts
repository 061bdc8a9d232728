// Consumes what other systems change in orders: approval outcomes (TOPICS.approvals) and
// fulfilment updates (TOPICS.fulfilment). Each message is applied once (the runner's inbox), in the
// runner's transaction; an illegal fulfilment update goes to the dead-letter topic with its reason.
import type { Kafka } from 'kafkajs';
import type { Knex } from 'knex';
import { ApprovalOutcome, FulfilmentUpdate, TOPICS } from '@ordering/contracts';
import type { Logger } from '@ordering/http';
import { type ConsumerTuning, type ConsumerRunner, createConsumer, topicHandler } from '@ordering/messaging';
import type { OrdersDatabase } from '../../data-access/orders-database';
import type { OrderFeedUseCase } from '../../domain/order-feed-use-case';

export function orderFeedConsumer(deps: {
  kafka: Kafka;
  knex: Knex;
  db: OrdersDatabase;
  feed: OrderFeedUseCase;
  groupId: string;
  fromBeginning: boolean;
  logger: Logger;
  tuning?: ConsumerTuning;
}): ConsumerRunner {
  const note = (what: string, id: string, result: { applied: boolean; reason?: string }) => {
    if (!result.applied) deps.logger.info({ id, reason: result.reason }, `${what} not applied`);
  };
  return createConsumer({
    kafka: deps.kafka,
    knex: deps.knex,
    groupId: deps.groupId,
    fromBeginning: deps.fromBeginning,
    topics: [TOPICS.approvals, TOPICS.fulfilment],
    logger: deps.logger,
    ...deps.tuning,
    topicHandlers: {
      [TOPICS.approvals]: topicHandler({
        schema: ApprovalOutcome,
        id: (m) => m.id,
        handle: async (m, ctx) =>
          note(m.type, m.id, await deps.feed.applyApprovalOutcome(deps.db.within(ctx.trx), m)),
      }),
      [TOPICS.fulfilment]: topicHandler({
        schema: FulfilmentUpdate,
        id: (u) => u.id,
        handle: async (u, ctx) =>
          note(`fulfilment ${u.status}`, u.id, await deps.feed.applyFulfilment(deps.db.within(ctx.trx), u)),
      }),
    },
  });
}
