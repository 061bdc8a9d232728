// The only place that knows how chains, orders in approval and approvals are stored. Bound to the
// pool or to one transaction.
import type { Knex } from 'knex';
import type { ApprovalRecord, ApprovalStatus, ChainOrder, OrderSummary } from '../domain/approval';

interface ApprovalRow {
  id: string;
  order_id: string;
  cust_id: string;
  approver: string;
  step: number;
  status: ApprovalStatus;
  order_summary: OrderSummary;
  created_at: Date;
  decided_at: Date | null;
  reason: string | null;
  reassigned_from: string | null;
}

interface OrderRow {
  order_id: string;
  cust_id: string;
  order_summary: OrderSummary;
  approvers: string[];
  current_step: number;
  status: ChainOrder['status'];
}

const toOrder = (r: OrderRow): ChainOrder => ({
  orderId: r.order_id,
  custId: r.cust_id,
  summary: r.order_summary,
  approvers: r.approvers,
  currentStep: r.current_step,
  status: r.status,
});

export interface QueueQuery {
  approver: string;
  custIds: string[];
  status: ApprovalStatus;
  after?: { createdAt: Date; id: string };
  limit: number;
}

export class ApprovalsRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  // Chains
  async chainsOf(custIds: string[]): Promise<Map<string, string[]>> {
    const rows = (await this.db('approval_chains').whereIn('cust_id', custIds)) as {
      cust_id: string;
      approvers: string[];
    }[];
    return new Map(rows.map((r) => [r.cust_id, r.approvers]));
  }

  async saveChain(custId: string, approvers: string[], by: string, now: Date): Promise<void> {
    if (approvers.length === 0) {
      await this.db('approval_chains').where({ cust_id: custId }).delete();
      return;
    }
    await this.db('approval_chains')
      .insert({ cust_id: custId, approvers, updated_by: by, updated_at: now })
      .onConflict('cust_id')
      .merge();
  }

  // Orders going through a chain
  /** Inserts the order once; false when it was already there (a redelivered order.submitted). */
  async insertOrder(order: ChainOrder, now: Date): Promise<boolean> {
    const rows = await this.db('approval_orders')
      .insert({
        order_id: order.orderId,
        cust_id: order.custId,
        order_summary: JSON.stringify(order.summary),
        approvers: order.approvers,
        current_step: order.currentStep,
        status: order.status,
        created_at: now,
      })
      .onConflict('order_id')
      .ignore()
      .returning('order_id');
    return rows.length > 0;
  }

  async orderForUpdate(orderId: string): Promise<ChainOrder | undefined> {
    const row = (await this.db('approval_orders').where({ order_id: orderId }).forUpdate().first()) as
      OrderRow | undefined;
    return row ? toOrder(row) : undefined;
  }

  async updateOrder(order: ChainOrder, now: Date): Promise<void> {
    await this.db('approval_orders')
      .where({ order_id: order.orderId })
      .update({
        current_step: order.currentStep,
        status: order.status,
        decided_at: order.status === 'pending' ? null : now,
      });
  }

  // Approvals
  async insertApproval(a: ApprovalRecord): Promise<void> {
    await this.db('approvals').insert({
      id: a.id,
      order_id: a.orderId,
      cust_id: a.custId,
      approver: a.approver,
      step: a.step,
      status: a.status,
      order_summary: JSON.stringify(a.order),
      created_at: a.createdAt,
      decided_at: a.decidedAt,
      reason: a.reason,
      reassigned_from: a.reassignedFrom,
    });
  }

  async find(id: string): Promise<ApprovalRecord | undefined> {
    const row = (await this.db('approvals').where({ id }).first()) as ApprovalRow | undefined;
    return row ? toApproval(row) : undefined;
  }

  async findForUpdate(id: string): Promise<ApprovalRecord | undefined> {
    const row = (await this.db('approvals').where({ id }).forUpdate().first()) as ApprovalRow | undefined;
    return row ? toApproval(row) : undefined;
  }

  async decide(id: string, status: ApprovalStatus, reason: string | null, now: Date): Promise<void> {
    await this.db('approvals').where({ id }).update({ status, reason, decided_at: now });
  }

  /** Withdraws the order's pending approvals (of one step, or all); returns them. */
  async withdrawPending(
    orderId: string,
    now: Date,
    step?: number,
    reason?: string,
  ): Promise<ApprovalRecord[]> {
    const q = this.db('approvals').where({ order_id: orderId, status: 'pending' });
    if (step !== undefined) void q.where({ step });
    const rows = (await q
      .update({ status: 'withdrawn', decided_at: now, reason: reason ?? null })
      .returning('*')) as ApprovalRow[];
    return rows.map(toApproval);
  }

  /**
   * The pending approvals of a login (reassignment when it is deactivated), not locked: the caller
   * locks each one's order, then the approval, as every decision does.
   */
  async pendingOf(approver: string): Promise<ApprovalRecord[]> {
    const rows = (await this.db('approvals')
      .where({ approver, status: 'pending' })
      .orderBy([{ column: 'created_at' }, { column: 'id' }])) as ApprovalRow[];
    return rows.map(toApproval);
  }

  async queue(q: QueueQuery): Promise<ApprovalRecord[]> {
    const query = this.db('approvals')
      .where({ approver: q.approver, status: q.status })
      .whereIn('cust_id', q.custIds)
      .orderBy([
        { column: 'created_at', order: 'asc' },
        { column: 'id', order: 'asc' },
      ])
      .limit(q.limit);
    if (q.after) void query.whereRaw('(created_at, id) > (?, ?)', [q.after.createdAt, q.after.id]);
    return ((await query) as ApprovalRow[]).map(toApproval);
  }
}

function toApproval(r: ApprovalRow): ApprovalRecord {
  return {
    id: r.id,
    orderId: r.order_id,
    custId: r.cust_id,
    approver: r.approver,
    step: r.step,
    status: r.status,
    order: r.order_summary,
    createdAt: r.created_at,
    decidedAt: r.decided_at,
    reason: r.reason,
    reassignedFrom: r.reassigned_from,
  };
}
