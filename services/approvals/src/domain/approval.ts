// An approval (one approver's decision on one step of an order's chain) and the order going
// through its chain, with the REST shape of an approval (decisions.md "Approvals").
import type { Approval, Money, UserRef } from '@ordering/contracts';

export type ApprovalStatus = 'pending' | 'approved' | 'rejected' | 'withdrawn';

/** What an approval shows of its order. */
export interface OrderSummary {
  [key: string]: unknown;
  id: string;
  total: Money;
  ordered_by: UserRef;
  submitted_at: string;
}

export interface ApprovalRecord {
  id: string;
  orderId: string;
  custId: string;
  approver: string;
  step: number;
  status: ApprovalStatus;
  order: OrderSummary;
  createdAt: Date;
  decidedAt: Date | null;
  /** Rejection reason or approval comment; for a withdrawn approval, why. */
  reason: string | null;
  /** The approver whose approval this one replaced (deactivated approver). */
  reassignedFrom: string | null;
}

/** An order going through its chain: the approvers of each step as they were at submission. */
export interface ChainOrder {
  orderId: string;
  custId: string;
  summary: OrderSummary;
  approvers: string[];
  /** The step open now (1-based). */
  currentStep: number;
  status: 'pending' | 'approved' | 'rejected' | 'withdrawn';
}

export function approvalResource(a: ApprovalRecord): Approval {
  return {
    id: a.id,
    object: 'approval',
    order_id: a.orderId,
    cust_id: a.custId,
    approver: a.approver,
    step: a.step,
    status: a.status,
    order: a.order,
    created_at: a.createdAt.toISOString(),
    decided_at: a.decidedAt?.toISOString() ?? null,
    reason: a.reason,
    ...(a.reassignedFrom ? { reassigned_from: a.reassignedFrom } : {}),
  };
}
