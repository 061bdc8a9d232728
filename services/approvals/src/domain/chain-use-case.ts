// Approval chains: per account, an ordered list of approver logins. An account without its own
// chain inherits the chain of its nearest ancestor that has one. Only admins of the account tree
// read or replace one; a replacement is checked step by step (known, active, holding the approver or
// admin role, inside the tree, and
// of the account itself or one of its ancestors: an approver's token reaches their own account and
// its descendants only, so a sub-account's user could never see nor decide the parent's approvals).
import { InputError, NotFoundError } from '@ordering/errors';
import type { ApprovalsDatabase } from '../data-access/approvals-database';
import type { Actor, Clock, Directory } from './ports';

export interface EffectiveChain {
  object: 'approval_chain';
  cust_id: string;
  /** The account whose chain applies: the account itself, an ancestor, or null when none does. */
  inherited_from: string | null;
  steps: { step: number; approver: string }[];
}

export const MAX_STEPS = 20;

/** The roles a user named in a chain must hold one of. */
const APPROVING_ROLES: readonly string[] = ['approver', 'admin'];

/** Whether the user holds a role that lets them approve (a step may name them). */
export const mayApprove = (user: { roles: readonly string[] }): boolean =>
  user.roles.some((role) => APPROVING_ROLES.includes(role));

export class ChainUseCase {
  constructor(private readonly deps: { db: ApprovalsDatabase; directory: Directory; clock: Clock }) {}

  /** The chain that applies to an account; undefined for an unknown account. */
  async effective(custId: string): Promise<EffectiveChain | undefined> {
    const lineage = await this.deps.directory.lineage(custId);
    if (!lineage) return undefined;
    const chains = await this.deps.db.approvals.chainsOf(lineage.lineage);
    const source = lineage.lineage.find((c) => chains.has(c));
    const approvers = source ? chains.get(source)! : [];
    return {
      object: 'approval_chain',
      cust_id: custId,
      inherited_from: source ?? null,
      steps: approvers.map((approver, i) => ({ step: i + 1, approver })),
    };
  }

  async get(actor: Actor, custId: string): Promise<EffectiveChain> {
    await this.assertReach(actor, custId);
    return (await this.effective(custId))!;
  }

  /** Replaces the account's own chain (no steps: the account inherits again). */
  async put(actor: Actor, custId: string, approvers: string[]): Promise<EffectiveChain> {
    const { lineage } = await this.assertReach(actor, custId);
    // The chain keeps each user's own login: the customers service finds `Adam.Approver` for
    // `adam.approver`, but a queue and a decision match the token's login exactly, so a step stored
    // as typed would open an approval nobody can see or decide (the order would wait for ever).
    const logins: string[] = [];
    for (const [index, login] of approvers.entries()) {
      const param = `steps[${index}].approver`;
      const user = await this.deps.directory.user(login);
      if (!user || !(await this.deps.directory.withinReach(actor.custId, user.cust_id))) {
        throw new InputError(`No user ${login} in this account tree`, param);
      }
      if (logins.includes(user.login))
        throw new InputError(`${user.login} is already an approver of an earlier step`, param);
      logins.push(user.login);
      if (user.status !== 'active') throw new InputError(`The user ${login} is deactivated`, param);
      // Only users the account made approvers (or admins, who take over a deactivated approver's
      // steps): a shopper named here would decide orders, their own included.
      if (!mayApprove(user)) {
        throw new InputError(
          `${user.login} has neither the approver nor the admin role; give them the approver role first`,
          param,
        );
      }
      if (!lineage.includes(user.cust_id)) {
        throw new InputError(
          `${login} cannot approve orders of ${custId}: an approver must belong to ${custId} or one of its parent accounts`,
          param,
        );
      }
    }
    await this.deps.db.approvals.saveChain(custId, logins, actor.login, this.deps.clock.now());
    return (await this.effective(custId))!;
  }

  /** The account's lineage (itself first), or 404 when it is outside the actor's reach. */
  private async assertReach(actor: Actor, custId: string): Promise<{ lineage: string[] }> {
    const reached = await this.deps.directory.withinReach(actor.custId, custId);
    if (!reached) throw new NotFoundError(`No such customer: ${custId}`, 'cust_id');
    return reached;
  }
}
