// Consumes every domain event topic an account's webhooks can subscribe to. An event envelope (every
// type of the contracts, so a new type is fanned out the day it lands) is recorded and fanned out to
// its deliveries once; a catalog change message becomes per-account `catalog.item.updated`
// deliveries. The consumer runner applies each in one transaction with the inbox row.
import { trace } from '@opentelemetry/api';
import type { Kafka } from 'kafkajs';
import type { Knex } from 'knex';
import { CatalogItemChange, SUBSCRIBABLE_EVENT_TYPES, TOPICS } from '@ordering/contracts';
import {
  createConsumer,
  type ConsumerRunner,
  type ConsumerTuning,
  type EventHandlers,
  type MessagingLogger,
  topicHandler,
} from '@ordering/messaging';
import type { catalogFanOutUseCase } from '../../domain/catalog-fan-out-use-case';
import type { BeforeCommit, fanOutUseCase } from '../../domain/fan-out-use-case';

export const DOMAIN_EVENT_TOPICS = [TOPICS.orders, TOPICS.users, TOPICS.catalogItems];

export function domainEventsConsumer(deps: {
  kafka: Kafka;
  knex: Knex;
  groupId: string;
  fromBeginning: boolean;
  /** Fetch and group timings (`consumerEnv`'s fetch settings). */
  tuning?: ConsumerTuning;
  /** Partitions consumed at once. */
  concurrency?: number;
  recordEvent: ReturnType<typeof fanOutUseCase>;
  catalogChange: ReturnType<typeof catalogFanOutUseCase>;
  logger?: MessagingLogger;
}): ConsumerRunner {
  // Written with the other events of the transaction just before it commits.
  const record = async (
    event: Parameters<typeof deps.recordEvent>[1],
    ctx: { trx: Knex.Transaction; beforeCommit: BeforeCommit },
  ) => {
    const traceId = trace.getActiveSpan()?.spanContext().traceId ?? null;
    await deps.recordEvent(ctx.trx, event, traceId, ctx.beforeCommit);
  };
  const handlers = Object.fromEntries(
    SUBSCRIBABLE_EVENT_TYPES.map((type) => [type, record]),
  ) as EventHandlers;
  return createConsumer({
    kafka: deps.kafka,
    knex: deps.knex,
    groupId: deps.groupId,
    fromBeginning: deps.fromBeginning,
    topics: DOMAIN_EVENT_TOPICS,
    ...deps.tuning,
    ...(deps.concurrency ? { partitionsConsumedConcurrently: deps.concurrency } : {}),
    handlers,
    topicHandlers: {
      [TOPICS.catalogItems]: topicHandler({
        schema: CatalogItemChange,
        id: (change) => change.id,
        handle: async (change, ctx) => {
          await deps.catalogChange(ctx.trx, change);
        },
      }),
    },
    ...(deps.logger ? { logger: deps.logger } : {}),
  });
}
