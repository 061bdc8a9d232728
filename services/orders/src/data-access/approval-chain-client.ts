// Which approval chain applies to an account, asked of the approvals service (the owner of chains).
import { EffectiveApprovalChain, effectiveApprovalChainPath } from '@ordering/contracts';
import { UnavailableError } from '@ordering/errors';
import { InternalApiClient } from '@ordering/http';

export class ApprovalChainClient {
  private readonly api: InternalApiClient;

  constructor(options: { baseUrl: string; secret: string; timeoutMs?: number }) {
    this.api = new InternalApiClient({ ...options, caller: 'orders', callee: 'approvals' });
  }

  /** The steps of the chain that applies to the account (empty when none does). */
  async stepsFor(custId: string): Promise<EffectiveApprovalChain['steps']> {
    const path = effectiveApprovalChainPath(custId);
    const res = await this.api.request('GET', path);
    if (res.status !== 200) throw this.api.unexpected(res, path);
    const parsed = EffectiveApprovalChain.safeParse(res.body);
    if (!parsed.success) throw new UnavailableError('The approvals service answered a malformed chain');
    return parsed.data.steps;
  }
}
