import { Money, Timestamp, UserRef } from './common-schemas';
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

export const RejectRequest = requestObject({ reason: z.string().min(1).max(1000) }).openapi('RejectRequest', {
  description: 'Body of POST /v1/approvals/{approval_id}/reject',
});
export type RejectRequest = z.infer<typeof RejectRequest>;
