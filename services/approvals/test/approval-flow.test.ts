// Approval chains and the approval flow with the real orders and customers services and real
// Kafka between them: chains and inheritance, steps opened one after another, approve and reject
// with the approver's own identity, 404/409 rules, cancellation withdrawing approvals, a
// deactivated approver's queue moving to the admins, concurrent decisions, and the preview.
import { encodeCursor } from '@ordering/http';
import {
  ADMIN,
  ALL,
  type PlatformHarness,
  eventually,
  seed,
  startPlatformHarness,
} from './support/approvals-harness';
import { TOPICS, newEventId, newId } from '@ordering/contracts';
import { readDeadLetter } from '@ordering/messaging';
import { readEvents, readTopic, testKafkaClient, waitUntil } from '@ordering/testing';

let h: PlatformHarness;
let s: Awaited<ReturnType<typeof seed>>;

beforeAll(async () => {
  h = await startPlatformHarness();
  s = await seed(h);
});
afterAll(() => h?.stop());

const chainPath = (c: string) => `/v1/customers/${c}/approval_chain`;
const bigOrder = (custId: string, address: string) => ({
  cust_id: custId,
  shipping_address_id: address,
  items: [{ item_code: 'CHAIR-ERGO', quantity: 2 }],
});

async function placeBig(custId = s.root, address = s.address.root): Promise<string> {
  const res = await h.call('orders', s.root, s.u.sam).post('/v1/orders').send(bigOrder(custId, address));
  expect(res.status).toBe(201);
  expect(res.body.status).toBe('pending_approval');
  return res.body.id as string;
}

const getOrder = (id: string) => h.call('orders', s.root, s.u.ada, ADMIN).get(`/v1/orders/${id}`);

async function pendingFor(login: string, orderId: string, custId = s.root) {
  const res = await eventually(
    () => h.call('approvals', custId, login).get(`/v1/approvals?approver=${login}&limit=100`),
    (r) => r.body.data?.some((a: { order_id: string }) => a.order_id === orderId),
  );
  return res.body.data.find((a: { order_id: string }) => a.order_id === orderId) as {
    id: string;
    step: number;
    approver: string;
  };
}

describe('approval chains', () => {
  it('PUT refuses unknown, deactivated and out-of-tree approvers and users without the approver or admin role, naming the step', async () => {
    const put = (steps: string[]) =>
      h
        .call('approvals', s.root, s.u.ada, ADMIN)
        .put(chainPath(s.root))
        .send({ steps: steps.map((approver) => ({ approver })) });
    for (const [bad, message] of [
      ['nobody-at-all', /No user/],
      [s.u.gone, /deactivated/],
      [s.u.otto, /No user/],
      [s.u.sam, /neither the approver nor the admin role/],
    ] as const) {
      const res = await put([s.u.adam, bad]);
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({
        type: 'invalid_request',
        code: 'invalid_value',
        param: 'steps[1].approver',
      });
      expect(res.body.error.message).toMatch(message);
    }
    // An admin may be named (admins take over a deactivated approver's steps).
    expect((await put([s.u.adam, s.u.ada])).status).toBe(200);
    expect((await put([])).status).toBe(200);
    const missing = await h.call('approvals', s.root, s.u.ada, ADMIN).put(chainPath(s.root)).send({});
    expect(missing.body.error).toMatchObject({ code: 'missing_required_field', param: 'steps' });
  });

  it("PUT refuses an approver of a sub-account for its parent's chain (that approver could never see nor decide the parent's orders)", async () => {
    const carl = `carl-${newId('x').slice(-8).toLowerCase()}`;
    await h.admin.createUser({
      login: carl,
      cust_id: s.child,
      name: 'Carl Child',
      email: `${carl}@example.com`,
      roles: ['approver', 'shopper'],
    });
    const put = (custId: string, steps: string[]) =>
      h
        .call('approvals', s.root, s.u.ada, ADMIN)
        .put(chainPath(custId))
        .send({ steps: steps.map((approver) => ({ approver })) });
    const parent = await put(s.root, [s.u.adam, carl]);
    expect({ status: parent.status, error: parent.body.error }).toEqual({
      status: 422,
      error: expect.objectContaining({ code: 'invalid_value', param: 'steps[1].approver' }),
    });
    expect(parent.body.error.message).toContain(`cannot approve orders of ${s.root}`);
    // The sub-account's own chain may name its own users and its parent's.
    const child = await put(s.child, [carl, s.u.adam]);
    expect({ status: child.status, steps: child.body.steps }).toEqual({
      status: 200,
      steps: [
        { step: 1, approver: carl },
        { step: 2, approver: s.u.adam },
      ],
    });
    expect((await put(s.child, [])).body.inherited_from).not.toBe(s.child);
  });

  it("PUT stores an approver's own login, however it was cased: the approval lands in their queue and they decide it", async () => {
    const put = (steps: string[]) =>
      h
        .call('approvals', s.root, s.u.ada, ADMIN)
        .put(chainPath(s.child))
        .send({ steps: steps.map((approver) => ({ approver })) });
    // The customers service finds a login in any case; the same user twice is still refused.
    const twice = await put([s.u.adam, s.u.adam.toUpperCase()]);
    expect({ status: twice.status, error: twice.body.error }).toEqual({
      status: 422,
      error: expect.objectContaining({ code: 'invalid_value', param: 'steps[1].approver' }),
    });
    const res = await put([s.u.adam.toUpperCase()]);
    expect({ status: res.status, steps: res.body.steps }).toEqual({
      status: 200,
      steps: [{ step: 1, approver: s.u.adam }],
    });
    try {
      const orderId = await placeBig(s.child, s.address.child);
      const approval = await pendingFor(s.u.adam, orderId);
      expect(approval).toMatchObject({ approver: s.u.adam, cust_id: s.child, step: 1 });
      const approved = await h
        .call('approvals', s.root, s.u.adam)
        .post(`/v1/approvals/${approval.id}/approve`)
        .send({});
      expect(approved.status).toBe(200);
      await eventually(
        () => getOrder(orderId),
        (r) => r.body.status === 'approved',
      );
    } finally {
      await put([]);
    }
  });

  it('PUT sets the chain; a child inherits it; only admin:all of the tree may read or change it', async () => {
    const res = await h
      .call('approvals', s.root, s.u.ada, ADMIN)
      .put(chainPath(s.root))
      .send({ steps: [{ approver: s.u.adam }, { approver: s.u.april }] });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      object: 'approval_chain',
      cust_id: s.root,
      inherited_from: s.root,
      steps: [
        { step: 1, approver: s.u.adam },
        { step: 2, approver: s.u.april },
      ],
    });
    const child = await h.call('approvals', s.root, s.u.ada, ADMIN).get(chainPath(s.child));
    expect(child.body).toMatchObject({ cust_id: s.child, inherited_from: s.root, steps: res.body.steps });
    expect((await h.call('approvals', s.root, s.u.sam, ALL).get(chainPath(s.root))).status).toBe(403);
    const foreignChain = await h.call('approvals', s.other, s.u.otto, ADMIN).get(chainPath(s.root));
    expect({ status: foreignChain.status, error: foreignChain.body.error }).toEqual({
      status: 404,
      error: expect.objectContaining({ code: 'resource_missing', param: 'cust_id' }),
    });
    expect(
      (await h.call('approvals', s.other, s.u.otto, ADMIN).put(chainPath(s.root)).send({ steps: [] })).status,
    ).toBe(404);
  });
});

describe('the approval flow', () => {
  it('walks both steps with each approver, then the order is approved', async () => {
    const orderId = await placeBig();
    const first = await pendingFor(s.u.adam, orderId);
    expect(first).toMatchObject({
      step: 1,
      approver: s.u.adam,
      status: 'pending',
      cust_id: s.root,
      order: { id: orderId, ordered_by: { login: s.u.sam } },
    });
    // Not April's yet; not anybody else's to decide (404 naming the path parameter).
    const notHers = await h
      .call('approvals', s.root, s.u.april)
      .post(`/v1/approvals/${first.id}/approve`)
      .send({});
    expect({ status: notHers.status, error: notHers.body.error }).toEqual({
      status: 404,
      error: expect.objectContaining({ code: 'resource_missing', param: 'approval_id' }),
    });
    expect(
      (await h.call('approvals', s.other, s.u.otto).post(`/v1/approvals/${first.id}/approve`).send({}))
        .status,
    ).toBe(404);
    const approved = await h
      .call('approvals', s.root, s.u.adam)
      .post(`/v1/approvals/${first.id}/approve`)
      .send({ comment: 'ok' });
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({
      id: first.id,
      object: 'approval',
      status: 'approved',
      reason: 'ok',
      decided_at: expect.any(String),
    });
    const again = await h
      .call('approvals', s.root, s.u.adam)
      .post(`/v1/approvals/${first.id}/approve`)
      .send({});
    expect(again.status).toBe(409);
    expect(again.body.error).toMatchObject({ type: 'invalid_request', code: 'approval_not_pending' });
    expect((await getOrder(orderId)).body.status).toBe('pending_approval');

    const second = await pendingFor(s.u.april, orderId);
    expect(second.step).toBe(2);
    expect(
      (await h.call('approvals', s.root, s.u.april).post(`/v1/approvals/${second.id}/approve`)).status,
    ).toBe(200);
    const order = await eventually(
      () => getOrder(orderId),
      (r) => r.body.status === 'approved',
    );
    expect(order.body.approved_at).toEqual(expect.any(String));
    // The approver reads the order that was in their queue.
    expect((await h.call('orders', s.root, s.u.april).get(`/v1/orders/${orderId}`)).status).toBe(200);
  });

  it('a rejection cancels the order with the reason', async () => {
    const orderId = await placeBig();
    const first = await pendingFor(s.u.adam, orderId);
    const noReason = await h
      .call('approvals', s.root, s.u.adam)
      .post(`/v1/approvals/${first.id}/reject`)
      .send({});
    expect(noReason.status).toBe(422);
    expect(noReason.body.error).toMatchObject({ code: 'missing_required_field', param: 'reason' });
    const blank = await h
      .call('approvals', s.root, s.u.adam)
      .post(`/v1/approvals/${first.id}/reject`)
      .send({ reason: ' \t ' });
    expect(blank.status).toBe(422);
    expect(blank.body.error).toMatchObject({
      code: 'invalid_value',
      param: 'reason',
      message: expect.stringMatching(/blank/),
    });
    const res = await h
      .call('approvals', s.root, s.u.adam)
      .post(`/v1/approvals/${first.id}/reject`)
      .send({ reason: 'Over budget' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'rejected', reason: 'Over budget' });
    const order = await eventually(
      () => getOrder(orderId),
      (r) => r.body.status === 'cancelled',
    );
    expect(order.body.cancellation).toEqual({
      cancelled_by: { login: s.u.adam, name: 'Adam Approver' },
      reason: 'Over budget',
    });
  });

  it('an order.submitted for an account the customers service does not know is dead-lettered, never approved', async () => {
    // A real order.submitted, replayed as an order of an account nobody here knows (another
    // environment's, say): approvals must not approve it as if no chain applied.
    const submitted = await readEvents<{ id: string; type: string; cust_id: string; data: { id: string } }>(
      TOPICS.orders,
      (e) => e.type === 'order.submitted',
    );
    const orderId = await placeBig();
    const original = (await submitted.waitFor((events) => events.some((e) => e.data.id === orderId))).find(
      (e) => e.data.id === orderId,
    );
    await submitted.stop();
    const foreign = {
      ...original!,
      id: newEventId(),
      cust_id: `UNKNOWN-${h.suffix}`,
      data: { ...original!.data, id: newId('ord'), cust_id: `UNKNOWN-${h.suffix}` },
    };
    const kafka = testKafkaClient();
    const deadLetters = await readTopic(kafka, TOPICS.deadLetter);
    const approvalEvents = await readEvents<{ type: string; order_id: string }>(
      TOPICS.approvals,
      (e) => e.order_id === foreign.data.id,
    );
    const producer = kafka.producer();
    await producer.connect();
    await producer.send({
      topic: TOPICS.orders,
      messages: [
        {
          key: foreign.data.id,
          value: JSON.stringify(foreign),
          headers: { 'event-type': 'order.submitted' },
        },
      ],
    });
    await producer.disconnect();
    // The topic holds every test file's dead letters (one broker): find this event's.
    const isForeign = (m: { value: string | null }) =>
      (JSON.parse(m.value ?? '{}') as { id?: string }).id === foreign.id;
    const letter = (await deadLetters.waitFor((ms) => ms.some(isForeign))).find(isForeign);
    expect(readDeadLetter(letter!.headers)).toMatchObject({ reason: 'permanent_error' });
    expect(readDeadLetter(letter!.headers)!.error).toContain('unknown account');
    // The consumer moved on: an order placed afterwards is still handled, and nothing was approved.
    const next = await placeBig();
    await pendingFor(s.u.adam, next);
    expect(approvalEvents.events).toEqual([]);
    await Promise.all([deadLetters.stop(), approvalEvents.stop()]);
  });

  it('cancelling a pending order withdraws its open approval', async () => {
    const orderId = await placeBig();
    const first = await pendingFor(s.u.adam, orderId);
    expect(
      (
        await h
          .call('orders', s.root, s.u.sam)
          .post(`/v1/orders/${orderId}/cancel`)
          .send({ reason: 'changed mind' })
      ).status,
    ).toBe(200);
    const withdrawn = await eventually(
      () =>
        h
          .call('approvals', s.root, s.u.adam)
          .get(`/v1/approvals?approver=${s.u.adam}&status=withdrawn&limit=100`),
      (r) => r.body.data.some((a: { id: string }) => a.id === first.id),
    );
    expect(withdrawn.body.data.find((a: { id: string }) => a.id === first.id).status).toBe('withdrawn');
    expect(
      (await h.call('approvals', s.root, s.u.adam).post(`/v1/approvals/${first.id}/approve`)).status,
    ).toBe(409);
  });

  it("an approver never decides their own order: that step goes to the account's admins", async () => {
    await h
      .call('approvals', s.root, s.u.ada, ADMIN)
      .put(chainPath(s.root))
      .send({ steps: [{ approver: s.u.adam }, { approver: s.u.april }] })
      .expect(200);
    const placed = await h
      .call('orders', s.root, s.u.adam)
      .post('/v1/orders')
      .send(bigOrder(s.root, s.address.root));
    expect(placed.body.status).toBe('pending_approval');
    const orderId = placed.body.id as string;
    const ada = await pendingFor(s.u.ada, orderId);
    await pendingFor(s.u.alan, orderId);
    expect(ada).toMatchObject({ step: 1, reassigned_from: s.u.adam });
    const adamsQueue = await h
      .call('approvals', s.root, s.u.adam)
      .get(`/v1/approvals?approver=${s.u.adam}&limit=100`);
    expect(adamsQueue.body.data.some((a: { order_id: string }) => a.order_id === orderId)).toBe(false);
    await h.call('approvals', s.root, s.u.ada).post(`/v1/approvals/${ada.id}/approve`).send({}).expect(200);
    // The next step is another approver's, who decides as usual.
    const april = await pendingFor(s.u.april, orderId);
    expect(april).toMatchObject({ step: 2 });
    expect(april).not.toHaveProperty('reassigned_from');
  });

  it("a step whose approver lost the approver role since the chain was set goes to the account's admins", async () => {
    const dora = `dora-${newId('x').slice(-8).toLowerCase()}`;
    await h.admin.createUser({
      login: dora,
      cust_id: s.root,
      name: 'Dora Demoted',
      email: `${dora}@example.com`,
      roles: ['approver', 'shopper'],
    });
    await h
      .call('approvals', s.root, s.u.ada, ADMIN)
      .put(chainPath(s.root))
      .send({ steps: [{ approver: dora }] })
      .expect(200);
    await h.admin.request('PATCH', `/internal/v1/admin/users/${dora}`, { roles: ['shopper'] });
    const orderId = await placeBig();
    expect(await pendingFor(s.u.ada, orderId)).toMatchObject({ step: 1, reassigned_from: dora });
    const dorasQueue = await h
      .call('approvals', s.root, dora)
      .get(`/v1/approvals?approver=${dora}&limit=100`);
    expect(dorasQueue.body.data).toEqual([]);
    // The chain the following tests expect.
    await h
      .call('approvals', s.root, s.u.ada, ADMIN)
      .put(chainPath(s.root))
      .send({ steps: [{ approver: s.u.adam }, { approver: s.u.april }] })
      .expect(200);
  });

  it('an approver demoted with approvals waiting decides none of them (403 approver_role_required); they move to the admins, order.approval.requested fires for them, and an admin approves the order', async () => {
    const dee = `dee-${newId('x').slice(-8).toLowerCase()}`;
    await h.admin.createUser({
      login: dee,
      cust_id: s.root,
      name: 'Dee Demoted',
      email: `${dee}@example.com`,
      roles: ['approver', 'shopper'],
    });
    await h
      .call('approvals', s.root, s.u.ada, ADMIN)
      .put(chainPath(s.root))
      .send({ steps: [{ approver: dee }] })
      .expect(200);
    let orderId = '';
    const requested = await readEvents(
      TOPICS.orders,
      (e) => e.type === 'order.approval.requested' && (e.data as { id?: string }).id === orderId,
    );
    try {
      orderId = await placeBig();
      const waiting = await pendingFor(dee, orderId);
      await h.admin.request('PATCH', `/internal/v1/admin/users/${dee}`, { roles: ['shopper'] });
      // At once, whether or not the role change has reached this service yet: refused, not decided.
      for (const action of ['approve', 'reject'] as const) {
        const refused = await h
          .call('approvals', s.root, dee)
          .post(`/v1/approvals/${waiting.id}/${action}`)
          .send(action === 'reject' ? { reason: 'not mine any more' } : {});
        expect({ status: refused.status, error: refused.body.error }).toEqual({
          status: 403,
          error: expect.objectContaining({ type: 'permission_error', code: 'approver_role_required' }),
        });
      }
      const ada = await pendingFor(s.u.ada, orderId);
      const alan = await pendingFor(s.u.alan, orderId);
      expect(ada).toMatchObject({ step: 1, reassigned_from: dee });
      expect(alan).toMatchObject({ step: 1, reassigned_from: dee });
      const theirs = await h
        .call('approvals', s.root, dee)
        .get(`/v1/approvals?approver=${dee}&status=withdrawn&limit=100`);
      expect(theirs.body.data.find((a: { id: string }) => a.id === waiting.id)).toMatchObject({
        status: 'withdrawn',
        reason: `${dee} no longer holds the approver or the admin role`,
      });
      const approvers = await requested.waitFor((es) => es.length >= 3);
      expect(
        approvers.map((e) => (e.data as { approval: { approver: string } }).approval.approver).sort(),
      ).toEqual([dee, s.u.ada, s.u.alan].sort());
      await h.call('approvals', s.root, s.u.ada).post(`/v1/approvals/${ada.id}/approve`).send({}).expect(200);
      await eventually(
        () => getOrder(orderId),
        (r) => r.body.status === 'approved',
      );
    } finally {
      await requested.stop();
      // The chain the following tests expect.
      await h
        .call('approvals', s.root, s.u.ada, ADMIN)
        .put(chainPath(s.root))
        .send({ steps: [{ approver: s.u.adam }, { approver: s.u.april }] })
        .expect(200);
    }
  });

  it('a role change that leaves the approver or the admin role moves nothing', async () => {
    const orderId = await placeBig();
    const first = await pendingFor(s.u.adam, orderId);
    const changes = await readTopic(testKafkaClient(), TOPICS.userRoles);
    try {
      // Approver only, then admin instead of approver, then back: still one who approves, each time.
      for (const roles of [['approver'], ['admin'], ['approver', 'shopper']])
        await h.admin.request('PATCH', `/internal/v1/admin/users/${s.u.adam}`, { roles });
      const adams = (await changes.waitFor((ms) => ms.filter((m) => m.key === s.u.adam).length === 3))
        .filter((m) => m.key === s.u.adam)
        .map((m) => (JSON.parse(m.value!) as { id: string }).id);
      // Once this service has applied all three, none of them moved anything.
      await waitUntil(async () => {
        const rows = await h.approvalsDb.knex('processed_events').whereIn('event_id', adams);
        return rows.length === 3;
      }, 20_000);
    } finally {
      await changes.stop();
    }
    const queue = await h
      .call('approvals', s.root, s.u.adam)
      .get(`/v1/approvals?approver=${s.u.adam}&limit=100`);
    expect(queue.body.data.find((a: { id: string }) => a.id === first.id)).toMatchObject({
      status: 'pending',
    });
    await h
      .call('approvals', s.root, s.u.adam)
      .post(`/v1/approvals/${first.id}/approve`)
      .send({})
      .expect(200);
    expect(await pendingFor(s.u.april, orderId)).toMatchObject({ step: 2 });
  });

  it("a deactivated approver's pending approvals move to the admins; the first admin decides, the other's is withdrawn", async () => {
    const orderId = await placeBig();
    const first = await pendingFor(s.u.adam, orderId);
    await h.admin.request('POST', `/internal/v1/admin/users/${s.u.adam}/deactivate`);
    const ada = await pendingFor(s.u.ada, orderId);
    const alan = await pendingFor(s.u.alan, orderId);
    expect(ada).toMatchObject({ step: 1, reassigned_from: s.u.adam });
    const adamQueue = await h
      .call('approvals', s.root, s.u.adam)
      .get(`/v1/approvals?approver=${s.u.adam}&status=withdrawn&limit=100`);
    expect(adamQueue.body.data.map((a: { id: string }) => a.id)).toContain(first.id);
    // Both admins at once: exactly one decision wins.
    const [a, b] = await Promise.all([
      h.call('approvals', s.root, s.u.ada).post(`/v1/approvals/${ada.id}/approve`).send({}),
      h.call('approvals', s.root, s.u.alan).post(`/v1/approvals/${alan.id}/approve`).send({}),
    ]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    await pendingFor(s.u.april, orderId);
    // A queue of the tree read by an admin; another's queue with a shopper's token is not found.
    const adminView = await h
      .call('approvals', s.root, s.u.ada, ['admin:all'])
      .get(`/v1/approvals?approver=${s.u.april}`);
    expect(adminView.body.data.some((x: { order_id: string }) => x.order_id === orderId)).toBe(true);
    expect(
      (await h.call('approvals', s.root, s.u.sam).get(`/v1/approvals?approver=${s.u.april}`)).status,
    ).toBe(404);
    expect(
      (await h.call('approvals', s.other, s.u.otto, ['admin:all']).get(`/v1/approvals?approver=${s.u.april}`))
        .status,
    ).toBe(404);
  });

  it('refuses a forged cursor with 422 naming starting_after, not a 500', async () => {
    const someApproval = 'apr_01JD0Z8Q3N4M5P6R7S8T9V0W1X';
    for (const cursor of [
      encodeCursor({ t: 'x', id: 'y' }),
      encodeCursor({ t: '', id: someApproval }),
      encodeCursor({ t: '2026-99-99T00:00:00Z', id: someApproval }),
      encodeCursor({ t: '99999-01-01T00:00:00Z', id: someApproval }),
      encodeCursor({ t: 1700000000000, id: someApproval }),
      encodeCursor({}),
    ]) {
      const res = await h
        .call('approvals', s.root, s.u.april)
        .get(`/v1/approvals?approver=${s.u.april}&starting_after=${cursor}`);
      expect({ cursor, status: res.status, error: res.body.error }).toEqual({
        cursor,
        status: 422,
        error: expect.objectContaining({
          type: 'invalid_request',
          code: 'invalid_value',
          param: 'starting_after',
        }),
      });
    }
  });

  it('approve racing reject on the same approval: exactly one wins', async () => {
    // adam is deactivated by now: set a one-step chain of april for the child account.
    await h
      .call('approvals', s.root, s.u.ada, ADMIN)
      .put(chainPath(s.child))
      .send({ steps: [{ approver: s.u.april }] });
    const orderId = await placeBig(s.child, s.address.child);
    const approval = await pendingFor(s.u.april, orderId);
    const [a, r] = await Promise.all([
      h.call('approvals', s.root, s.u.april).post(`/v1/approvals/${approval.id}/approve`).send({}),
      h
        .call('approvals', s.root, s.u.april)
        .post(`/v1/approvals/${approval.id}/reject`)
        .send({ reason: 'no' }),
    ]);
    expect([a.status, r.status].sort()).toEqual([200, 409]);
    const final = a.status === 200 ? 'approved' : 'cancelled';
    await eventually(
      () => getOrder(orderId),
      (res) => res.body.status === final,
    );
  });

  it('previews a draft order: total, whether it needs approval and the chain, creating nothing', async () => {
    const big = await h
      .call('approvals', s.root, s.u.sam)
      .post('/v1/approvals/preview')
      .send(bigOrder(s.child, s.address.child));
    expect(big.status).toBe(200);
    expect(big.body).toEqual({
      object: 'approval_preview',
      cust_id: s.child,
      total: { amount: 69_800 + 5_061 + 500, currency: 'USD' },
      approval_required_over: { amount: 50_000, currency: 'USD' },
      requires_approval: true,
      chain: [{ step: 1, approver: s.u.april }],
      inherited_from: s.child,
    });
    const small = await h
      .call('approvals', s.root, s.u.sam)
      .post('/v1/approvals/preview')
      .send({ ...bigOrder(s.root, s.address.root), items: [{ item_code: 'PEN-BLUE', quantity: 1 }] });
    expect(small.body).toMatchObject({ requires_approval: false, chain: [] });
    const foreign = await h
      .call('approvals', s.other, s.u.otto)
      .post('/v1/approvals/preview')
      .send(bigOrder(s.root, s.address.root));
    expect(foreign.status).toBe(404);
    const bad = await h
      .call('approvals', s.root, s.u.sam)
      .post('/v1/approvals/preview')
      .send({ ...bigOrder(s.root, s.address.root), items: [{ item_code: 'NOPE', quantity: 1 }] });
    expect(bad.status).toBe(422);
    expect(bad.body.error).toMatchObject({ code: 'invalid_item', param: 'items[0].item_code' });
  });
});

describe('whose queue a token reads', () => {
  // cleo approves for the child account; her queue also holds a root order (a root chain saved
  // before PUT refused her names her), which only a token of the root's tree may see.
  let cleo: string;
  let rootOrder: string;
  let childOrder: string;
  const integration = { root: '', child: '', other: '' };
  const queueOf = (custId: string, login: string, scopes: string[], approver: string) =>
    h.call('approvals', custId, login, scopes).get(`/v1/approvals?approver=${approver}&limit=100`);
  const orderIds = (res: { body: { data: { order_id: string }[] } }) => res.body.data.map((a) => a.order_id);

  /** What a client sees for an approver outside its reach: the same 404 as an unknown approver. */
  function expectNoSuchApprover(res: Awaited<ReturnType<typeof queueOf>>, approver: string) {
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['www-authenticate']).toBeUndefined();
    expect(res.body.error).toEqual({
      type: 'invalid_request',
      code: 'resource_missing',
      param: 'approver',
      message: `No such approver: ${approver}`,
      request_id: res.headers['x-request-id'],
    });
  }

  beforeAll(async () => {
    const lower = h.suffix.toLowerCase();
    cleo = `cleo-${lower}`;
    // Integrations: their login is the client's, not a user's.
    integration.root = `acme-s2s-${lower}`;
    integration.child = `acme-eu-s2s-${lower}`;
    integration.other = `other-s2s-${lower}`;
    await h.admin.createUser({
      login: cleo,
      cust_id: s.child,
      name: 'Cleo Approver',
      email: `${cleo}@example.com`,
      roles: ['approver'],
    });
    const put = await h
      .call('approvals', s.root, s.u.ada, ADMIN)
      .put(chainPath(s.child))
      .send({ steps: [{ approver: cleo }] });
    expect(put.status).toBe(200);
    // PUT refuses a child's user for the root's chain now (she could never decide it); a chain saved
    // before that rule may still name her, and the queue must still show each token only its tree.
    await h.approvals.parts.db.approvals.saveChain(s.root, [cleo], s.u.ada, new Date());
    rootOrder = await placeBig(s.root, s.address.root);
    childOrder = await placeBig(s.child, s.address.child);
    await eventually(
      () => queueOf(s.root, s.u.ada, ADMIN, cleo),
      (r) => [rootOrder, childOrder].every((id) => orderIds(r).includes(id)),
    );
  });

  it("an integration token (orders:read, no admin:all) lists any approver's queue of its tree", async () => {
    const res = await queueOf(s.root, integration.root, ['orders:read'], cleo);
    expect(res.status).toBe(200);
    expect(res.headers['www-authenticate']).toBeUndefined();
    expect(res.body).toMatchObject({
      object: 'list',
      url: '/v1/approvals',
      has_more: false,
      next_cursor: null,
    });
    expect(orderIds(res)).toEqual(expect.arrayContaining([rootOrder, childOrder]));
    expect(res.body.data.find((a: { order_id: string }) => a.order_id === rootOrder)).toMatchObject({
      object: 'approval',
      approver: cleo,
      status: 'pending',
      cust_id: s.root,
      order: { id: rootOrder, ordered_by: { login: s.u.sam } },
    });
    // The login in another case names the same user (as the customers service finds it): the same
    // queue, not an empty one.
    const cased = await queueOf(s.root, integration.root, ['orders:read'], cleo.toUpperCase());
    expect(cased.status).toBe(200);
    expect(orderIds(cased)).toEqual(orderIds(res));
  });

  it("an integration of a sub-account lists only its own tree's approvals of that queue", async () => {
    const res = await queueOf(s.child, integration.child, ['orders:read'], cleo);
    expect(res.status).toBe(200);
    expect(orderIds(res)).toContain(childOrder);
    expect(orderIds(res)).not.toContain(rootOrder);
    expect(res.body.data.every((a: { cust_id: string }) => a.cust_id === s.child)).toBe(true);
  });

  it("an approver outside the token's tree, or unknown, is 404 with param approver", async () => {
    expectNoSuchApprover(await queueOf(s.other, integration.other, ['orders:read'], cleo), cleo);
    expectNoSuchApprover(await queueOf(s.other, s.u.otto, ADMIN, cleo), cleo);
    // The child's integration does not reach the root account's approvers.
    expectNoSuchApprover(await queueOf(s.child, integration.child, ['orders:read'], s.u.april), s.u.april);
    expectNoSuchApprover(
      await queueOf(s.root, integration.root, ['orders:read'], 'nobody-at-all'),
      'nobody-at-all',
    );
  });

  it("a shopper's or approver's own token reads only its own queue; another's is 404 like an unknown one", async () => {
    for (const login of [s.u.sam, s.u.april]) {
      expectNoSuchApprover(await queueOf(s.root, login, ALL, cleo), cleo);
      expectNoSuchApprover(await queueOf(s.root, login, ALL, 'nobody-at-all'), 'nobody-at-all');
    }
    // An admin user reads every order of the tree (orders' rule), so every queue of it too.
    const admin = await queueOf(s.root, s.u.ada, ['orders:read'], cleo);
    expect(admin.status).toBe(200);
    expect(orderIds(admin)).toEqual(expect.arrayContaining([rootOrder, childOrder]));
  });

  it('an approver still lists their own queue (in any case), and a shopper their (empty) own', async () => {
    const own = await queueOf(s.child, cleo, ['orders:read'], cleo);
    expect(own.status).toBe(200);
    expect(orderIds(own)).toContain(childOrder);
    // Their own login in another case is their own queue, as it is for a reader of the tree.
    const cased = await queueOf(s.child, cleo, ['orders:read'], cleo.toUpperCase());
    expect(cased.status).toBe(200);
    expect(orderIds(cased)).toEqual(orderIds(own));
    const sam = await queueOf(s.root, s.u.sam, ALL, s.u.sam);
    expect(sam.status).toBe(200);
    expect(sam.body.data).toEqual([]);
  });
});
