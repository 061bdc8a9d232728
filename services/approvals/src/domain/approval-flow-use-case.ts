// The life of an order's approval chain. On order.submitted (status pending_approval) step 1
// opens; each approval opens the next step; after the last the chain is approved; a rejection ends
// it. Cancelling the order withdraws its open approvals. The pending approvals of an approver who
// may no longer approve (deactivated, or holding neither the approver nor the admin role any more)
// move to the active admins of the order's account (else of its nearest ancestor with admins).
// Every change writes, in its transaction, the outcome the orders service turns into order events.
import { type Order, type User, newId } from '@ordering/contracts';
import { ConflictError, NotAllowedError, NotFoundError } from '@ordering/errors';
import { readsWholeTree } from '@ordering/customers-client';
import { PermanentError } from '@ordering/messaging';
import type { ApprovalsDatabase, TransactionScope } from '../data-access/approvals-database';
import { type ApprovalRecord, type ApprovalStatus, type ChainOrder, approvalResource } from './approval';
import { type ChainUseCase, mayApprove } from './chain-use-case';
import type { Actor, Clock, Directory } from './ports';

export class ApprovalFlowUseCase {
  constructor(
    private readonly deps: {
      db: ApprovalsDatabase;
      directory: Directory;
      chains: ChainUseCase;
      clock: Clock;
      /** Where an approval that no admin can take over is told (an operator must act). */
      logger?: { warn(obj: object, msg: string): void };
    },
  ) {}

  /** order.submitted: an order that waits for approval enters step 1 of the chain that applies. */
  async orderSubmitted(scope: TransactionScope, order: Order): Promise<void> {
    if (order.status !== 'pending_approval') return;
    const chain = await this.deps.chains.effective(order.cust_id);
    // An account the customers service does not know: not an order of this platform's accounts
    // (another environment's, or a broken event). Dead-lettered for an operator, never approved
    // as if no chain applied.
    if (!chain) throw new PermanentError(`order ${order.id} is for an unknown account ${order.cust_id}`);
    const now = this.deps.clock.now();
    const chainOrder: ChainOrder = {
      orderId: order.id,
      custId: order.cust_id,
      summary: {
        id: order.id,
        total: order.total,
        ordered_by: order.ordered_by,
        submitted_at: order.submitted_at,
      },
      approvers: chain.steps.map((s) => s.approver),
      currentStep: 1,
      status: 'pending',
    };
    if (!(await scope.approvals.insertOrder(chainOrder, now))) return;
    // The chain was removed after the order was placed: nothing to wait for.
    if (chainOrder.approvers.length === 0) {
      chainOrder.status = 'approved';
      await scope.approvals.updateOrder(chainOrder, now);
      await scope.send({
        id: newId('apo'),
        type: 'approval.chain_approved',
        order_id: order.id,
        cust_id: order.cust_id,
        occurred_at: now.toISOString(),
        approved_by: { login: 'system', name: 'No approval chain applies' },
      });
      return;
    }
    await this.openStep(scope, chainOrder, 1, now);
  }

  /** order.cancelled: the order's open approvals are withdrawn. */
  async orderCancelled(scope: TransactionScope, orderId: string): Promise<void> {
    const order = await scope.approvals.orderForUpdate(orderId);
    if (!order || order.status !== 'pending') return;
    const now = this.deps.clock.now();
    order.status = 'withdrawn';
    await scope.approvals.updateOrder(order, now);
    await scope.approvals.withdrawPending(orderId, now, undefined, 'The order was cancelled');
  }

  /**
   * user.deactivated: the login's pending approvals move to the admins of each order's account.
   * Locks like a decision does, the order first and then its approval (re-read under the lock): the
   * other way round, an approve of the same login running meanwhile deadlocked with it (a 500).
   */
  async approverDeactivated(scope: TransactionScope, login: string): Promise<void> {
    await this.moveQueueToAdmins(scope, login, `${login} was deactivated`);
  }

  /**
   * user.roles_changed: a user left with neither the approver nor the admin role no longer
   * approves; their pending approvals move to the admins as a deactivated approver's do. The
   * message's roles are the user's at that change (one user's changes arrive in order): a later
   * change back gives the role, not the approvals already moved, back.
   */
  async approverRolesChanged(
    scope: TransactionScope,
    change: { login: string; roles: readonly string[] },
  ): Promise<void> {
    if (mayApprove(change)) return;
    await this.moveQueueToAdmins(scope, change.login, `${change.login} ${NO_APPROVING_ROLE}`);
  }

  /** Every pending approval of `login` goes to the admins of its order's account. */
  private async moveQueueToAdmins(scope: TransactionScope, login: string, reason: string): Promise<void> {
    const now = this.deps.clock.now();
    for (const pending of await scope.approvals.pendingOf(login))
      await this.moveToAdmins(scope, pending, reason, now);
  }

  /**
   * approval.step_opened, once its transaction committed: an approver deactivated or demoted
   * meanwhile has it moved to the admins. user.deactivated (or user.roles_changed) alone misses an
   * approval whose transaction had read the approver as active (an approver) but not yet committed
   * when the change was applied (two replicas apply order and user messages at once); one of the
   * two always sees the other.
   */
  async approvalOpened(scope: TransactionScope, approvalId: string): Promise<void> {
    const approval = await scope.approvals.find(approvalId);
    if (!approval || approval.status !== 'pending') return;
    const why = whyNotApproving(approval.approver, await this.deps.directory.user(approval.approver));
    if (why === null) return;
    await this.moveToAdmins(scope, approval, why, this.deps.clock.now());
  }

  /** A pending approval of an approver who may no longer approve goes to the order's account's admins. */
  private async moveToAdmins(
    scope: TransactionScope,
    pending: { id: string; orderId: string; approver: string },
    reason: string,
    now: Date,
  ): Promise<void> {
    const login = pending.approver;
    const order = await scope.approvals.orderForUpdate(pending.orderId);
    if (!order || order.status !== 'pending') return;
    const approval = await scope.approvals.findForUpdate(pending.id);
    if (!approval || approval.status !== 'pending') return; // decided meanwhile
    const admins = (await this.adminsFor(order.custId)).filter((a) => a !== login && !placedBy(order, a));
    if (admins.length === 0) {
      // Documented: it waits for an operator (a role given back, an admin, or the order cancelled).
      this.deps.logger?.warn(
        { approval_id: approval.id, order_id: order.orderId, cust_id: order.custId, approver: login, reason },
        'pending approval stays with an approver who may no longer decide it: no active admin in the account tree',
      );
      return;
    }
    await scope.approvals.decide(approval.id, 'withdrawn', reason, now);
    for (const admin of admins) await this.openApproval(scope, order, approval.step, admin, now, login);
  }

  async approve(actor: Actor, approvalId: string, comment: string | null) {
    return this.decide(actor, approvalId, 'approved', comment);
  }

  async reject(actor: Actor, approvalId: string, reason: string) {
    return this.decide(actor, approvalId, 'rejected', reason);
  }

  /**
   * An approver's queue, listing only approvals of accounts in the caller's tree: the caller's
   * own, or, for a caller that reads every order of its tree (`readsWholeTree` of
   * libs/customers-client), any approver's of that tree. Any other approver is 404 like an unknown
   * one, so nothing reveals who approves what.
   */
  async queue(
    actor: Actor,
    query: {
      approver: string;
      status?: ApprovalStatus;
      after?: { createdAt: Date; id: string };
      limit: number;
    },
  ) {
    // Logins are unique regardless of case: `Cleo.Approver` is the caller's own queue too.
    const own = query.approver.toLowerCase() === actor.login.toLowerCase();
    const approver = own ? actor.login : await this.queueOf(actor, query.approver);
    const custIds = (await this.deps.directory.reach(actor.custId)) ?? [];
    return this.deps.db.approvals.queue({
      approver,
      custIds,
      status: query.status ?? 'pending',
      ...(query.after ? { after: query.after } : {}),
      limit: query.limit,
    });
  }

  /**
   * Another approver's queue: only for a reader of the whole tree, and an approver inside it. Answers
   * the user's own login (the customers service finds one in any case; approvals hold it exactly).
   */
  private async queueOf(actor: Actor, approver: string): Promise<string> {
    const user = (await readsWholeTree(actor, this.deps.directory))
      ? await this.deps.directory.user(approver)
      : undefined;
    if (!user || (await this.deps.directory.withinReach(actor.custId, user.cust_id)) === undefined) {
      throw new NotFoundError(`No such approver: ${approver}`, 'approver');
    }
    return user.login;
  }

  private async decide(
    actor: Actor,
    approvalId: string,
    decision: 'approved' | 'rejected',
    reason: string | null,
  ) {
    const found = await this.deps.db.approvals.find(approvalId);
    // Only the approver's own queue: another login's approval is not found, like an unknown one.
    if (
      !found ||
      found.approver !== actor.login ||
      !(await this.deps.directory.withinReach(actor.custId, found.custId))
    ) {
      throw new NotFoundError(`No such approval: ${approvalId}`, 'approval_id');
    }
    // The role is checked now, not when the approval opened: a demoted approver's approvals are
    // on their way to the admins (user.roles_changed), and meanwhile they decide nothing.
    const user = await this.deps.directory.user(actor.login);
    const why = whyNotApproving(actor.login, user);
    if (why !== null)
      throw new NotAllowedError(`You may not decide approvals: ${why}`, APPROVER_ROLE_REQUIRED);
    const by = { login: actor.login, name: user?.name ?? actor.login };
    return this.deps.db.transaction(async (scope) => {
      // The order first: decisions on one order are serialized (two approvers, approve vs reject).
      const order = await scope.approvals.orderForUpdate(found.orderId);
      const approval = await scope.approvals.findForUpdate(approvalId);
      if (!order || !approval || approval.status !== 'pending') {
        throw new ConflictError(
          'approval_not_pending',
          `This approval is ${approval?.status ?? 'gone'}, no longer pending`,
        );
      }
      const now = this.deps.clock.now();
      await scope.approvals.decide(approval.id, decision, reason, now);
      const siblings = `Decided by ${actor.login}`;
      if (decision === 'rejected') {
        order.status = 'rejected';
        await scope.approvals.updateOrder(order, now);
        await scope.approvals.withdrawPending(order.orderId, now, undefined, siblings);
        await scope.send({
          id: newId('apo'),
          type: 'approval.rejected',
          order_id: order.orderId,
          cust_id: order.custId,
          occurred_at: now.toISOString(),
          rejection: { reason: reason ?? '', rejected_by: by, rejected_at: now.toISOString() },
        });
      } else {
        await scope.approvals.withdrawPending(order.orderId, now, approval.step, siblings);
        if (approval.step < order.approvers.length) {
          await this.openStep(scope, order, approval.step + 1, now);
        } else {
          order.status = 'approved';
          await scope.approvals.updateOrder(order, now);
          await scope.send({
            id: newId('apo'),
            type: 'approval.chain_approved',
            order_id: order.orderId,
            cust_id: order.custId,
            occurred_at: now.toISOString(),
            approved_by: by,
          });
        }
      }
      return approvalResource({ ...approval, status: decision, reason, decidedAt: now });
    });
  }

  /**
   * Opens a step for its approver, or for the account's admins when that approver is no longer
   * active, no longer holds the approver or admin role (chain-use-case.ts), or placed the order
   * (nobody approves their own order).
   */
  private async openStep(scope: TransactionScope, order: ChainOrder, step: number, now: Date): Promise<void> {
    order.currentStep = step;
    await scope.approvals.updateOrder(order, now);
    const login = order.approvers[step - 1]!;
    const user = await this.deps.directory.user(login);
    if (whyNotApproving(login, user) === null && !placedBy(order, login)) {
      await this.openApproval(scope, order, step, login, now, null);
      return;
    }
    const admins = (await this.adminsFor(order.custId)).filter((a) => !placedBy(order, a));
    if (admins.length === 0) await this.openApproval(scope, order, step, login, now, null);
    for (const admin of admins) await this.openApproval(scope, order, step, admin, now, login);
  }

  private async openApproval(
    scope: TransactionScope,
    order: ChainOrder,
    step: number,
    approver: string,
    now: Date,
    reassignedFrom: string | null,
  ): Promise<ApprovalRecord> {
    const approval: ApprovalRecord = {
      id: newId('apr'),
      orderId: order.orderId,
      custId: order.custId,
      approver,
      step,
      status: 'pending',
      order: order.summary,
      createdAt: now,
      decidedAt: null,
      reason: null,
      reassignedFrom,
    };
    await scope.approvals.insertApproval(approval);
    await scope.send({
      id: newId('apo'),
      type: 'approval.step_opened',
      order_id: order.orderId,
      cust_id: order.custId,
      occurred_at: now.toISOString(),
      approval: { id: approval.id, approver, step },
    });
    return approval;
  }

  /** The active admins of the account, else of its nearest ancestor that has any. */
  private async adminsFor(custId: string): Promise<string[]> {
    const lineage = (await this.deps.directory.lineage(custId))?.lineage ?? [custId];
    for (const account of lineage) {
      const admins = await this.deps.directory.accountUsers(account, { role: 'admin', status: 'active' });
      if (admins.length > 0) return admins.map((a) => a.login).sort();
    }
    return [];
  }
}

/** The 403 code of a decision by a user who may no longer approve. */
export const APPROVER_ROLE_REQUIRED = 'approver_role_required';

const NO_APPROVING_ROLE = 'no longer holds the approver or the admin role';

/** Why `login` may not approve now (unknown, deactivated, no approving role), or null when they may. */
function whyNotApproving(login: string, user: Pick<User, 'status' | 'roles'> | undefined): string | null {
  if (!user) return `${login} is not a user of this platform`;
  if (user.status !== 'active') return `${login} was deactivated`;
  if (!mayApprove(user)) return `${login} ${NO_APPROVING_ROLE}`;
  return null;
}

/** Whether `login` placed the order (logins are unique regardless of case). */
const placedBy = (order: ChainOrder, login: string): boolean =>
  order.summary.ordered_by.login.toLowerCase() === login.toLowerCase();
