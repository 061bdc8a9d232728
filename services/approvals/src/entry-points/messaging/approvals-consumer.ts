// Consumes the order and user events that move approvals: order.submitted (open step 1),
// order.cancelled (withdraw), user.deactivated and the customers service's internal
// user.roles_changed (move the queue of an approver who may no longer approve to the admins), and
// its own approval.step_opened (the approver checked again once the step is committed).
import type { Kafka } from 'kafkajs';
import type { Knex } from 'knex';
import { ApprovalOutcome, EVENT_TYPES, TOPICS, UserRolesChange } from '@ordering/contracts';
import type { Logger } from '@ordering/http';
import { type ConsumerTuning, type ConsumerRunner, createConsumer, topicHandler } from '@ordering/messaging';
import type { ApprovalsDatabase } from '../../data-access/approvals-database';
import type { ApprovalFlowUseCase } from '../../domain/approval-flow-use-case';

export function approvalsConsumer(deps: {
  kafka: Kafka;
  knex: Knex;
  db: ApprovalsDatabase;
  flow: ApprovalFlowUseCase;
  groupId: string;
  fromBeginning: boolean;
  logger: Logger;
  tuning?: ConsumerTuning;
}): ConsumerRunner {
  return createConsumer({
    kafka: deps.kafka,
    knex: deps.knex,
    groupId: deps.groupId,
    fromBeginning: deps.fromBeginning,
    topics: [TOPICS.orders, TOPICS.users, TOPICS.userRoles, TOPICS.approvals],
    logger: deps.logger,
    ...deps.tuning,
    // Only an order waiting for approval opens a chain: the others (most) cost no transaction.
    filters: { [EVENT_TYPES.orderSubmitted]: (event) => event.data.status === 'pending_approval' },
    topicHandlers: {
      [TOPICS.userRoles]: topicHandler({
        schema: UserRolesChange,
        id: (m) => m.id,
        handle: (m, ctx) => deps.flow.approverRolesChanged(deps.db.within(ctx.trx), m),
      }),
      [TOPICS.approvals]: topicHandler({
        schema: ApprovalOutcome,
        id: (m) => m.id,
        handle: async (m, ctx) => {
          if (m.type === 'approval.step_opened') {
            await deps.flow.approvalOpened(deps.db.within(ctx.trx), m.approval.id);
          }
        },
      }),
    },
    handlers: {
      [EVENT_TYPES.orderSubmitted]: (event, ctx) =>
        deps.flow.orderSubmitted(deps.db.within(ctx.trx), event.data),
      [EVENT_TYPES.orderCancelled]: (event, ctx) =>
        deps.flow.orderCancelled(deps.db.within(ctx.trx), event.data.id),
      [EVENT_TYPES.userDeactivated]: (event, ctx) =>
        deps.flow.approverDeactivated(deps.db.within(ctx.trx), event.data.login),
    },
  });
}
