// POST /v1/approvals/preview: whether a draft order would need approval, its total and the chain of
// approvers it would walk, without creating anything. The orders service prices it (one place for
// the money rules); the chain is the one that applies now.
import type { ChainUseCase } from './chain-use-case';
import type { Actor, OrderQuotes } from './ports';

export class PreviewUseCase {
  constructor(private readonly deps: { quotes: OrderQuotes; chains: ChainUseCase }) {}

  async preview(actor: Actor, draft: { cust_id: string }) {
    const quote = await this.deps.quotes.quote({ cust_id: actor.custId, login: actor.login }, draft);
    const chain = (await this.deps.chains.effective(quote.cust_id))!;
    const requiresApproval = quote.above_threshold && chain.steps.length > 0;
    return {
      object: 'approval_preview',
      cust_id: quote.cust_id,
      total: quote.total,
      approval_required_over: quote.approval_required_over,
      requires_approval: requiresApproval,
      chain: requiresApproval ? chain.steps : [],
      inherited_from: requiresApproval ? chain.inherited_from : null,
    };
  }
}
