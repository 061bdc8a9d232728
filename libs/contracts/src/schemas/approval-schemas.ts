import { Money, Timestamp, UserRef } from './common-schemas';
import { ApprovalChainStep } from './customer-schemas';
import { z } from '../zod';
import { requestObject } from './request-object';

export const APPROVAL_STATUSES = ['pending', 'approved', 'rejected', 'withdrawn'] as const;

export const Approval = z
  .looseObject({
    id: z.string().openapi({ description: 'The `approval_id`' }),
    object: z.literal('approval'),
    order_id: z.string(),
    cust_id: z.string(),
    approver: z.string().openapi({ description: 'Login of the approver whose queue holds this approval' }),
    step: z.int().min(1),
    status: z.enum(APPROVAL_STATUSES),
    order: z.looseObject({
      id: z.string(),
      total: Money,
      ordered_by: UserRef,
      submitted_at: Timestamp,
    }),
    created_at: Timestamp,
    decided_at: Timestamp.nullable(),
    reason: z.string().nullable().openapi({ description: 'Rejection reason or approval comment' }),
  })
  .openapi('Approval', { description: 'One step of an order in an approver queue' });
export type Approval = z.infer<typeof Approval>;

export const ApproveRequest = requestObject({ comment: z.string().max(1000).optional() }).openapi(
  'ApproveRequest',
  { description: 'Optional body of POST /v1/approvals/{approval_id}/approve' },
);
export type ApproveRequest = z.infer<typeof ApproveRequest>;

export const RejectRequest = requestObject({
  // A reason of only spaces says nothing to the shopper whose order it cancels.
  reason: z.string().min(1).max(1000).regex(/\S/, 'must not be blank'),
}).openapi('RejectRequest', {
  description: 'Body of POST /v1/approvals/{approval_id}/reject',
});
export type RejectRequest = z.infer<typeof RejectRequest>;

export const ApprovalPreview = z
  .looseObject({
    object: z.literal('approval_preview'),
    cust_id: z.string(),
    total: Money,
    approval_required_over: Money.nullable(),
    requires_approval: z.boolean(),
    chain: z
      .array(ApprovalChainStep)
      .openapi({ description: 'The steps the order would walk (empty when no approval is needed)' }),
    inherited_from: z.string().nullable().openapi({ description: 'The account whose chain would apply' }),
  })
  .openapi('ApprovalPreview', {
    description: 'Whether a draft order would need approval, its total and its chain; nothing is created',
  });
export type ApprovalPreview = z.infer<typeof ApprovalPreview>;
