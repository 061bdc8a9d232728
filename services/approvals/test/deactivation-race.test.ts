// An approver deactivated while deciding: the user.deactivated consumer moves the approver's
// pending approvals to the admins while the approver's own approve request runs. Both must lock
// in the same order (the order in approval, then its approval), or the two transactions deadlock
// and PostgreSQL aborts one of them: the approve answered 500. And a step that opens while its
// approver is deactivated or demoted still ends with the admins.
import type { Knex } from '@ordering/db';
import { waitUntil } from '@ordering/testing';
import {
  ADMIN,
  type PlatformHarness,
  eventually,
  seed,
  startPlatformHarness,
} from './support/approvals-harness';

let h: PlatformHarness;
let s: Awaited<ReturnType<typeof seed>>;
type ApprovalFlow = PlatformHarness['approvals']['parts']['useCases']['flow'];
type ApprovalsDb = PlatformHarness['approvals']['parts']['db'];

beforeAll(async () => {
  h = await startPlatformHarness();
  s = await seed(h);
  const chain = await h
    .call('approvals', s.root, s.u.ada, ADMIN)
    .put(`/v1/customers/${s.root}/approval_chain`)
    .send({ steps: [{ approver: s.u.adam }, { approver: s.u.april }] });
  expect(chain.status).toBe(200);
});
afterAll(() => h?.stop());

async function placeBig(): Promise<string> {
  const res = await h
    .call('orders', s.root, s.u.sam)
    .post('/v1/orders')
    .send({
      cust_id: s.root,
      shipping_address_id: s.address.root,
      items: [{ item_code: 'CHAIR-ERGO', quantity: 2 }],
    });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function pendingFor(login: string, orderId: string): Promise<{ id: string; step: number }> {
  const res = await eventually(
    () => h.call('approvals', s.root, login).get(`/v1/approvals?approver=${login}&limit=100`),
    (r) => r.body.data?.some((a: { order_id: string }) => a.order_id === orderId),
  );
  return res.body.data.find((a: { order_id: string }) => a.order_id === orderId);
}

/** Sessions of the approvals database waiting for a lock. */
async function lockWaiters(): Promise<number> {
  const { rows } = await h.approvalsDb.knex.raw<{ rows: { n: number }[] }>(
    `select count(*)::int as n from pg_stat_activity where datname = ? and wait_event_type = 'Lock'`,
    [h.approvalsDb.name],
  );
  return rows[0]!.n;
}

it("an approver's approve racing their deactivation answers 200, never a deadlock's 500", async () => {
  const { flow } = h.approvals.parts.useCases;
  const { db } = h.approvals.parts;
  // One after the other: the deactivation moves the first order's approval first.
  const first = await placeBig();
  await pendingFor(s.u.adam, first);
  const second = await placeBig();
  const deciding = await pendingFor(s.u.adam, second);
  // This service checks each opened step again once committed: let it have done so for both.
  await waitUntil(
    async () => {
      const row = await h.approvalsDb
        .knex('outbox as o')
        .join('processed_events as p', 'p.event_id', 'o.event_id')
        .whereIn('o.key', [first, second])
        .count({ n: '*' })
        .first();
      return Number(row!.n) === 2;
    },
    20_000,
    'the opened steps checked',
  );

  // Hold the first order while the deactivation reaches it, so the approve runs in between.
  let release!: () => void;
  let held!: () => void;
  const holding = new Promise<void>((resolve) => (held = resolve));
  const blocker = h.approvalsDb.knex.transaction(async (trx: Knex.Transaction) => {
    await trx('approval_orders').where({ order_id: first }).forUpdate().first();
    held();
    await new Promise<void>((resolve) => (release = resolve));
  });
  await holding;
  let moving: Promise<void> | undefined;
  try {
    // The consumer's work on user.deactivated, applied while the approve runs: an approve checks
    // that its caller is still an active approver before it locks anything, so the race is with a
    // deactivation committed just after that check (here: not committed at all while it runs).
    moving = db.transaction((scope) => flow.approverDeactivated(scope, s.u.adam));
    await waitUntil(async () => (await lockWaiters()) >= 1, 20_000); // the consumer, at the first order

    let answered = false;
    const approving = (async () => {
      const res = await h
        .call('approvals', s.root, s.u.adam)
        .post(`/v1/approvals/${deciding.id}/approve`)
        .send({});
      answered = true;
      return res;
    })();
    // The approve either finishes at once or waits for a lock the consumer holds.
    await waitUntil(async () => answered || (await lockWaiters()) >= 2, 20_000);
    release();
    await blocker;
    await moving;

    const res = await approving;
    expect({ status: res.status, body: res.body }).toEqual({
      status: 200,
      body: expect.objectContaining({ id: deciding.id, status: 'approved' }),
    });
  } finally {
    release?.();
    await blocker.catch(() => {});
    await moving?.catch(() => {});
  }
  await h.admin.request('POST', `/internal/v1/admin/users/${s.u.adam}/deactivate`);
  // The second order went on to step 2; the first one's approval moved to the admins.
  expect(await pendingFor(s.u.april, second)).toMatchObject({ step: 2 });
  expect(await pendingFor(s.u.ada, first)).toMatchObject({ step: 1, reassigned_from: s.u.adam });
});

/**
 * Two replicas: one applies order.submitted for an order whose one-step chain names `approver` (it
 * reads the approver as able to approve and opens their step), the other applies a change of that
 * approver (`meanwhile`) before the step commits, so it finds no approval of theirs. The first
 * transaction is held at its outbox write while the second runs. Answers the order's id.
 */
async function stepOpeningDuring(
  approver: string,
  idSuffix: string,
  meanwhile: (flow: ApprovalFlow, db: ApprovalsDb) => Promise<void>,
): Promise<string> {
  const { flow } = h.approvals.parts.useCases;
  const { db } = h.approvals.parts;
  const placed = await placeBig();
  await pendingFor(s.u.ada, placed); // the real order.submitted applied (the chain's approver is gone: the admins)
  const chain = await h
    .call('approvals', s.root, s.u.ada, ADMIN)
    .put(`/v1/customers/${s.root}/approval_chain`)
    .send({ steps: [{ approver }] });
  expect(chain.status).toBe(200);
  // The same order under another id, submitted again by hand as the first replica would.
  const body = (await h.call('orders', s.root, s.u.ada, ADMIN).get(`/v1/orders/${placed}`)).body;
  const order = { ...body, id: `${placed.slice(0, -4)}${idSuffix}` };

  let release!: () => void;
  let held!: () => void;
  const holding = new Promise<void>((resolve) => (held = resolve));
  const blocker = h.approvalsDb.knex.transaction(async (trx: Knex.Transaction) => {
    await trx.raw('lock table outbox in exclusive mode');
    held();
    await new Promise<void>((resolve) => (release = resolve));
  });
  await holding;
  let submitted: Promise<void> | undefined;
  try {
    submitted = db.transaction((scope) => flow.orderSubmitted(scope, order));
    await waitUntil(async () => (await lockWaiters()) >= 1, 20_000, 'the step held at its commit');
    await meanwhile(flow, db);
  } finally {
    release();
    await blocker;
  }
  await submitted;
  return order.id;
}

/** Once the step is committed, its approval.step_opened has it checked again: it is the admins'. */
async function expectMovedToAdmins(orderId: string, from: string): Promise<void> {
  expect(await pendingFor(s.u.ada, orderId)).toMatchObject({ step: 1, reassigned_from: from });
  const queue = await h.call('approvals', s.root, from).get(`/v1/approvals?approver=${from}&limit=100`);
  expect(queue.body.data.filter((a: { order_id: string }) => a.order_id === orderId)).toEqual([]);
}

it('an approver deactivated while a step opens for them still has that approval moved to the admins', async () => {
  const late = `late-${h.suffix.toLowerCase()}`;
  await h.admin.createUser({
    login: late,
    cust_id: s.root,
    name: 'Late Approver',
    email: `${late}@example.com`,
    roles: ['approver'],
  });
  const orderId = await stepOpeningDuring(late, 'RACE', async (flow, db) => {
    await h.admin.request('POST', `/internal/v1/admin/users/${late}/deactivate`);
    await db.transaction((scope) => flow.approverDeactivated(scope, late));
  });
  await expectMovedToAdmins(orderId, late);
});

it('an approver demoted while a step opens for them still has that approval moved to the admins', async () => {
  // As above, with user.roles_changed instead of user.deactivated.
  const slow = `slow-${h.suffix.toLowerCase()}`;
  await h.admin.createUser({
    login: slow,
    cust_id: s.root,
    name: 'Slow Approver',
    email: `${slow}@example.com`,
    roles: ['approver', 'shopper'],
  });
  const orderId = await stepOpeningDuring(slow, 'DEMO', async (flow, db) => {
    await h.admin.request('PATCH', `/internal/v1/admin/users/${slow}`, { roles: ['shopper'] });
    await db.transaction((scope) => flow.approverRolesChanged(scope, { login: slow, roles: ['shopper'] }));
  });
  await expectMovedToAdmins(orderId, slow);
});
