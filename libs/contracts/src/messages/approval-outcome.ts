// What the approvals service tells the orders service about an order's approval chain, carried on
// TOPICS.approvals keyed by order id (so one order's messages keep their order). The orders service
// owns the order and every `order.*` event: it turns `step_opened` into `order.approval.requested`,
// `chain_approved` into `order.approved` and `rejected` into `order.rejected`.
import { Timestamp, UserRef } from '../schemas/common-schemas';
import { TOPICS } from '../topics';
import { z } from '../zod';

const common = {
  id: z.string().min(1).openapi({ description: 'Unique id of this message (idempotency key)' }),
  order_id: z.string().min(1),
  cust_id: z.string().min(1),
  occurred_at: Timestamp,
};

export const ApprovalOutcome = z
  .discriminatedUnion('type', [
    z.looseObject({
      ...common,
      type: z.literal('approval.step_opened'),
      approval: z.looseObject({ id: z.string(), approver: z.string(), step: z.int().min(1) }),
    }),
    z.looseObject({ ...common, type: z.literal('approval.chain_approved'), approved_by: UserRef }),
    z.looseObject({
      ...common,
      type: z.literal('approval.rejected'),
      rejection: z.looseObject({ reason: z.string(), rejected_by: UserRef, rejected_at: Timestamp }),
    }),
  ])
  .openapi('ApprovalOutcome', { description: "A change of an order's approval chain" });
export type ApprovalOutcome = z.infer<typeof ApprovalOutcome>;

export const APPROVAL_OUTCOME_TOPIC = TOPICS.approvals;
