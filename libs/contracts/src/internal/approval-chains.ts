// The approvals service's internal call that tells the orders service which approval chain applies
// to an account (its own, else its nearest ancestor's): GET /internal/v1/customers/{cust_id}/effective_approval_chain.
import { z } from '../zod';

export const EffectiveApprovalChain = z.looseObject({
  object: z.literal('approval_chain'),
  cust_id: z.string(),
  /** The account whose chain applies (the account itself or an ancestor); null when none applies. */
  inherited_from: z.string().nullable(),
  steps: z.array(z.looseObject({ step: z.int().min(1), approver: z.string() })),
});
export type EffectiveApprovalChain = z.infer<typeof EffectiveApprovalChain>;

export const effectiveApprovalChainPath = (custId: string) =>
  `/internal/v1/customers/${encodeURIComponent(custId)}/effective_approval_chain`;

/** The orders service's internal quote (pricing without creating): used by the approvals preview. */
export const ORDER_QUOTE_PATH = '/internal/v1/orders/quote';
