// Shoppers through /v1/users: reach, pagination, idempotent creation, concurrency, validation,
// deactivation, the user.created / user.deactivated events read back from Kafka, and the internal
// user.roles_changed message of a change of roles.
import { randomUUID } from 'node:crypto';
import { SUBSCRIBABLE_EVENT_TYPES, TOPICS, User, UserRolesChange } from '@ordering/contracts';
import { type Harness, createTree, startHarness } from './support/customers-harness';
import { readEvents, readTopic, testKafkaClient } from '@ordering/testing';

let h: Harness;
let tree: { root: string; child: string; grandchild: string };

beforeAll(async () => {
  h = await startHarness();
  tree = await createTree(h, 'SHOP');
});
afterAll(() => h?.stop());

const write = ['users:write', 'users:read'];
const newLogin = (name: string) => `${name}.${randomUUID().slice(0, 8)}`;
const body = (login: string, extra: Record<string, unknown> = {}) => ({
  login,
  email: `${login}@example.com`,
  name: `Name of ${login}`,
  ...extra,
});

describe('POST /v1/users', () => {
  it('creates a shopper in the token account with the decided record', async () => {
    const login = newLogin('ann');
    const res = await h
      .http()
      .post('/v1/users')
      .set('X-Ordering-Identity', h.identity(tree.root, write))
      .send(body(login, { department: 'Ops' }));
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: login,
      object: 'user',
      login,
      cust_id: tree.root,
      name: `Name of ${login}`,
      email: `${login}@example.com`,
      roles: ['shopper'],
      status: 'active',
      employee_id: null,
      department: 'Ops',
      cost_center: null,
      created_at: expect.any(String),
      deactivated_at: null,
    });
    expect(User.safeParse(res.body).error).toBeUndefined();
  });

  it.each(['login', 'email', 'name'])('answers 422 missing_required_field with param %s', async (field) => {
    const full = body(newLogin('val'));
    delete (full as Record<string, unknown>)[field];
    const res = await h
      .http()
      .post('/v1/users')
      .set('X-Ordering-Identity', h.identity(tree.root, write))
      .send(full);
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({
      type: 'invalid_request',
      code: 'missing_required_field',
      param: field,
    });
  });

  it('accepts an e-mail-like login with plus addressing, as SCIM and just-in-time sign-up create them', async () => {
    const login = `${newLogin('jane')}+shop@example.com`;
    const res = await h
      .http()
      .post('/v1/users')
      .set('X-Ordering-Identity', h.identity(tree.root, write))
      .send(body(login, { email: login }));
    expect(res.status).toBe(201);
    expect(res.body.login).toBe(login);
    const read = await h
      .http()
      .get(`/v1/users/${login}`)
      .set('X-Ordering-Identity', h.identity(tree.root, write));
    expect(read.status).toBe(200);
  });

  it('refuses a role listed twice with 422 invalid_value (param roles), on creation and on PATCH', async () => {
    const login = newLogin('twice');
    const created = await h
      .http()
      .post('/v1/users')
      .set('X-Ordering-Identity', h.identity(tree.root, write))
      .send(body(login, { roles: ['shopper', 'shopper'] }));
    expect(created.status).toBe(422);
    expect(created.body.error).toMatchObject({ code: 'invalid_value', param: 'roles' });
    await h.admin.createUser({ ...body(login), cust_id: tree.root });
    const patched = await h
      .http()
      .patch(`/v1/users/${login}`)
      .set('X-Ordering-Identity', h.identity(tree.root, write))
      .send({ roles: ['approver', 'shopper', 'approver'] });
    expect(patched.status).toBe(422);
    expect(patched.body.error).toMatchObject({ code: 'invalid_value', param: 'roles' });
    expect((await h.knex('users').where({ login }).first()).roles).toEqual(['shopper']);
  });

  it('refuses a blank name (only white space) with 422 invalid_value, on creation and on PATCH', async () => {
    const login = newLogin('blank');
    const created = await h
      .http()
      .post('/v1/users')
      .set('X-Ordering-Identity', h.identity(tree.root, write))
      .send(body(login, { name: ' \t ' }));
    expect(created.status).toBe(422);
    expect(created.body.error).toMatchObject({ code: 'invalid_value', param: 'name' });
    expect(await h.knex('users').where({ login }).first()).toBeUndefined();
    await h.admin.createUser({ ...body(login), cust_id: tree.root });
    const patched = await h
      .http()
      .patch(`/v1/users/${login}`)
      .set('X-Ordering-Identity', h.identity(tree.root, write))
      .send({ name: '   ' });
    expect(patched.status).toBe(422);
    expect(patched.body.error).toMatchObject({ code: 'invalid_value', param: 'name' });
    expect((await h.knex('users').where({ login }).first()).name).toBe(`Name of ${login}`);
  });

  it('answers 422 invalid_value for a malformed e-mail', async () => {
    const res = await h
      .http()
      .post('/v1/users')
      .set('X-Ordering-Identity', h.identity(tree.root, write))
      .send(body(newLogin('bad'), { email: 'not-an-email' }));
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'invalid_value', param: 'email' });
  });

  it('refuses an e-mail address over 254 characters (RFC 5321) with 422 invalid_value, also through SCIM', async () => {
    const login = newLogin('longmail');
    const email = `${'a'.repeat(60)}@${'b'.repeat(200)}.example`;
    const res = await h
      .http()
      .post('/v1/users')
      .set('X-Ordering-Identity', h.identity(tree.root, write))
      .send(body(login, { email }));
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'invalid_value', param: 'email' });
    const scim = await h
      .http()
      .post('/scim/v2/Users')
      .set('X-Ordering-Identity', h.identity(tree.root, write))
      .set('Content-Type', 'application/scim+json')
      .send(JSON.stringify({ userName: login, emails: [{ value: email }] }));
    expect(scim.status).toBe(400);
    expect(scim.body.scimType).toBe('invalidValue');
    expect(await h.knex('users').where({ login }).first()).toBeUndefined();
    const fits = `${'a'.repeat(60)}@${'b'.repeat(185)}.example`;
    expect(fits).toHaveLength(254);
    const ok = await h
      .http()
      .post('/v1/users')
      .set('X-Ordering-Identity', h.identity(tree.root, write))
      .send(body(login, { email: fits }));
    expect(ok.status).toBe(201);
  });

  it('refuses a duplicate login in any account, whatever its case: 409 login_taken', async () => {
    const login = newLogin('dup');
    await h.admin.createUser({ ...body(login), cust_id: tree.child });
    const res = await h
      .http()
      .post('/v1/users')
      .set('X-Ordering-Identity', h.identity(tree.root, write))
      .send(body(login.toUpperCase()));
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({ code: 'login_taken', param: 'login' });
  });

  it('of two concurrent creations of one login, one answers 201 and the other 409', async () => {
    const login = newLogin('race');
    const send = () =>
      h.http().post('/v1/users').set('X-Ordering-Identity', h.identity(tree.root, write)).send(body(login));
    const statuses = (await Promise.all([send(), send()])).map((r) => r.status).sort();
    expect(statuses).toEqual([201, 409]);
  });

  it('creates in a descendant account but not outside the token reach', async () => {
    const inChild = await h
      .http()
      .post('/v1/users')
      .set('X-Ordering-Identity', h.identity(tree.root, write))
      .send(body(newLogin('kid'), { cust_id: tree.grandchild }));
    expect(inChild.status).toBe(201);
    const inParent = await h
      .http()
      .post('/v1/users')
      .set('X-Ordering-Identity', h.identity(tree.child, write))
      .send(body(newLogin('up'), { cust_id: tree.root }));
    expect(inParent.status).toBe(404);
    expect(inParent.body.error).toMatchObject({ code: 'resource_missing', param: 'cust_id' });
  });

  it('needs users:write', async () => {
    const res = await h
      .http()
      .post('/v1/users')
      .set('X-Ordering-Identity', h.identity(tree.root, ['users:read']))
      .send(body(newLogin('noscope')));
    expect(res.status).toBe(403);
  });
});

describe('Idempotency-Key on POST /v1/users', () => {
  it('a retry with the same key and body answers the original response, replayed, creating nothing more', async () => {
    const key = randomUUID();
    const login = newLogin('idem');
    const send = () =>
      h
        .http()
        .post('/v1/users')
        .set('X-Ordering-Identity', h.identity(tree.root, write, { clientId: 'client-idem' }))
        .set('Idempotency-Key', key)
        .send(body(login));
    const first = await send();
    const second = await send();
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(second.status).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.body).toEqual(first.body);
    const rows = await h.knex('users').whereRaw('lower(login) = lower(?)', [login]);
    expect(rows).toHaveLength(1);
  });

  it('the same key with another body is 422 idempotency_key_reused', async () => {
    const key = randomUUID();
    const identity = h.identity(tree.root, write, { clientId: 'client-reuse' });
    const first = await h
      .http()
      .post('/v1/users')
      .set('X-Ordering-Identity', identity)
      .set('Idempotency-Key', key)
      .send(body(newLogin('a')));
    expect(first.status).toBe(201);
    const other = await h
      .http()
      .post('/v1/users')
      .set('X-Ordering-Identity', identity)
      .set('Idempotency-Key', key)
      .send(body(newLogin('b')));
    expect(other.status).toBe(422);
    expect(other.body.error).toMatchObject({ type: 'idempotency_error', code: 'idempotency_key_reused' });
  });

  it('keys are scoped per client: another client may use the same key', async () => {
    const key = randomUUID();
    const a = await h
      .http()
      .post('/v1/users')
      .set('X-Ordering-Identity', h.identity(tree.root, write, { clientId: 'client-a' }))
      .set('Idempotency-Key', key)
      .send(body(newLogin('ca')));
    const b = await h
      .http()
      .post('/v1/users')
      .set('X-Ordering-Identity', h.identity(tree.root, write, { clientId: 'client-b' }))
      .set('Idempotency-Key', key)
      .send(body(newLogin('cb')));
    expect([a.status, b.status]).toEqual([201, 201]);
    expect(b.headers['idempotent-replayed']).toBeUndefined();
  });

  it('a failed request does not consume its key: a corrected retry creates', async () => {
    const key = randomUUID();
    const identity = h.identity(tree.root, write, { clientId: 'client-fix' });
    const login = newLogin('fix');
    const bad = await h
      .http()
      .post('/v1/users')
      .set('X-Ordering-Identity', identity)
      .set('Idempotency-Key', key)
      .send({ login });
    expect(bad.status).toBe(422);
    const stillBad = await h
      .http()
      .post('/v1/users')
      .set('X-Ordering-Identity', identity)
      .set('Idempotency-Key', key)
      .send({ login });
    expect(stillBad.status).toBe(422);
    expect(stillBad.headers['idempotent-replayed']).toBeUndefined();
    const fixed = await h
      .http()
      .post('/v1/users')
      .set('X-Ordering-Identity', identity)
      .set('Idempotency-Key', key)
      .send(body(login));
    expect(fixed.status).toBe(201);
  });

  it('a retry while the first request is still running is 409 idempotency_key_in_use', async () => {
    const key = randomUUID();
    const identity = h.identity(tree.root, write, { clientId: 'client-slow' });
    const login = newLogin('slow');
    // Hold a lock on the account's users so that the first creation waits inside its transaction.
    const trx = await h.knex.transaction();
    await trx.raw('lock table users in exclusive mode');
    const first = h
      .http()
      .post('/v1/users')
      .set('X-Ordering-Identity', identity)
      .set('Idempotency-Key', key)
      .send(body(login));
    const firstDone = first.then((r) => r);
    // Wait until the first request holds its claim.
    for (let i = 0; i < 200; i++) {
      const row = await h.knex('idempotency_keys').where({ key }).first();
      if (row) break;
      await new Promise((r) => setTimeout(r, 10));
    }
    const second = await h
      .http()
      .post('/v1/users')
      .set('X-Ordering-Identity', identity)
      .set('Idempotency-Key', key)
      .send(body(login));
    await trx.rollback();
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('idempotency_key_in_use');
    expect((await firstDone).status).toBe(201);
  });
});

describe('GET /v1/users', () => {
  it('pages through more than 250 users with no duplicate or missing row', async () => {
    const custId = `${tree.root}-MANY`;
    await h.admin.createCustomer({ cust_id: custId, name: 'Many users', parent_cust_id: tree.root });
    const logins: string[] = [];
    for (let batch = 0; batch < 27; batch++) {
      const chunk = Array.from(
        { length: 10 },
        (_, i) => `m${String(batch * 10 + i).padStart(3, '0')}.${h.suffix.toLowerCase()}`,
      );
      await Promise.all(chunk.map((login) => h.admin.createUser({ ...body(login), cust_id: custId })));
      logins.push(...chunk);
    }
    const seen: string[] = [];
    let cursor: string | null = null as string | null;
    let pages = 0;
    do {
      const res = await h
        .http()
        .get(`/v1/users?cust_id=${custId}&limit=100${cursor ? `&starting_after=${cursor}` : ''}`)
        .set('X-Ordering-Identity', h.identity(tree.root, ['users:read']));
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((u: { login: string }) => u.login));
      cursor = res.body.has_more ? res.body.next_cursor : null;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(270);
    expect(new Set(seen).size).toBe(270);
    expect([...seen].sort()).toEqual([...logins].sort());
  });

  it('filters by status and role, and a child token sees none of the parent users', async () => {
    const approver = newLogin('appr');
    await h.admin.createUser({ ...body(approver), cust_id: tree.child, roles: ['shopper', 'approver'] });
    const gone = newLogin('gone');
    await h.admin.createUser({ ...body(gone), cust_id: tree.child });
    await h.admin.deactivateUser(gone);
    const parentUser = newLogin('parent');
    await h.admin.createUser({ ...body(parentUser), cust_id: tree.root });

    const get = async (query: string, custId = tree.child) =>
      (
        await h
          .http()
          .get(`/v1/users?${query}`)
          .set('X-Ordering-Identity', h.identity(custId, ['users:read']))
      ).body.data.map((u: { login: string }) => u.login);

    expect(await get('role=approver')).toEqual([approver]);
    expect(await get('status=deactivated')).toEqual([gone]);
    const all = await get('limit=100');
    expect(all).toContain(approver);
    expect(all).not.toContain(parentUser);
    const byParent = await h
      .http()
      .get(`/v1/users?cust_id=${tree.root}`)
      .set('X-Ordering-Identity', h.identity(tree.child, ['users:read']));
    expect(byParent.status).toBe(404);
    expect(byParent.body.error).toMatchObject({ code: 'resource_missing', param: 'cust_id' });
  });

  it('GET /v1/users/{login} answers 404 outside the token reach', async () => {
    const login = newLogin('top');
    await h.admin.createUser({ ...body(login), cust_id: tree.root });
    const fromChild = await h
      .http()
      .get(`/v1/users/${login}`)
      .set('X-Ordering-Identity', h.identity(tree.child, ['users:read']));
    expect(fromChild.status).toBe(404);
    expect(fromChild.body.error).toMatchObject({ code: 'resource_missing', param: 'login' });
    const fromRoot = await h
      .http()
      .get(`/v1/users/${login}`)
      .set('X-Ordering-Identity', h.identity(tree.root, ['users:read']));
    expect(fromRoot.status).toBe(200);
  });

  it('an invalid status filter is 422 with param status', async () => {
    const res = await h
      .http()
      .get('/v1/users?status=sleeping')
      .set('X-Ordering-Identity', h.identity(tree.root, ['users:read']));
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'invalid_value', param: 'status' });
  });
});

describe('PATCH and deactivate, with events', () => {
  it('user.created and user.deactivated are read back from Kafka with the envelope and the user as data', async () => {
    const login = newLogin('evt');
    const reader = await readEvents(TOPICS.users, (e) => (e.data as { login?: string }).login === login);
    try {
      const created = await h
        .http()
        .post('/v1/users')
        .set('X-Ordering-Identity', h.identity(tree.child, write))
        .send(body(login, { roles: ['shopper', 'approver'] }));
      expect(created.status).toBe(201);

      const patched = await h
        .http()
        .patch(`/v1/users/${login}`)
        .set('X-Ordering-Identity', h.identity(tree.root, write))
        .send({ name: 'Renamed', cost_center: 'CC-9' });
      expect(patched.status).toBe(200);
      expect(patched.body).toMatchObject({ name: 'Renamed', cost_center: 'CC-9', login });

      const deactivated = await h
        .http()
        .post(`/v1/users/${login}/deactivate`)
        .set('X-Ordering-Identity', h.identity(tree.child, write));
      expect(deactivated.status).toBe(200);
      expect(deactivated.body).toMatchObject({ status: 'deactivated', deactivated_at: expect.any(String) });
      // Deactivating again answers the user and fires nothing more.
      const again = await h
        .http()
        .post(`/v1/users/${login}/deactivate`)
        .set('X-Ordering-Identity', h.identity(tree.child, write));
      expect(again.status).toBe(200);

      const events = await reader.waitFor((es) => es.some((e) => e.type === 'user.deactivated'));
      expect(events.map((e) => e.type)).toEqual(['user.created', 'user.deactivated']);
      const [createdEvent, deactivatedEvent] = events;
      expect(createdEvent).toMatchObject({
        object: 'event',
        type: 'user.created',
        cust_id: tree.child,
        api_version: 'v1',
        id: expect.stringMatching(/^evt_/),
        data: created.body,
      });
      expect(deactivatedEvent).toMatchObject({
        type: 'user.deactivated',
        cust_id: tree.child,
        data: deactivated.body,
      });
    } finally {
      await reader.stop();
    }
  });

  it('a change of roles sends user.roles_changed on its internal topic (keyed by login), never a webhook event; other changes send nothing', async () => {
    const login = newLogin('demoted');
    const kafka = testKafkaClient();
    const roles = await readTopic(kafka, TOPICS.userRoles);
    const events = await readEvents(TOPICS.users, (e) => (e.data as { login?: string }).login === login);
    try {
      const created = await h
        .http()
        .post('/v1/users')
        .set('X-Ordering-Identity', h.identity(tree.root, write))
        .send(body(login, { roles: ['shopper', 'approver'] }));
      expect(created.status).toBe(201);
      const patch = (change: Record<string, unknown>, scopes = write) =>
        h
          .http()
          .patch(`/v1/users/${login}`)
          .set('X-Ordering-Identity', h.identity(tree.root, scopes))
          .send(change);
      // Nothing about roles: the same roles in another order, another name, a refused grant of admin.
      expect((await patch({ roles: ['approver', 'shopper'], name: 'Still approving' })).status).toBe(200);
      expect((await patch({ roles: ['shopper', 'admin'] })).status).toBe(403);
      const demoted = await patch({ roles: ['shopper'] });
      expect(demoted.status).toBe(200);
      expect(demoted.body.roles).toEqual(['shopper']);

      const mine = (ms: typeof roles.messages) => ms.filter((m) => m.key === login);
      const [message] = mine(await roles.waitFor((ms) => mine(ms).length > 0));
      expect(message!.headers['event-type']).toBe('user.roles_changed');
      const change = UserRolesChange.parse(JSON.parse(message!.value!));
      expect(change).toEqual({
        id: expect.stringMatching(/^urc_/),
        type: 'user.roles_changed',
        login,
        cust_id: tree.root,
        roles: ['shopper'],
        previous_roles: expect.arrayContaining(['shopper', 'approver']),
        occurred_at: expect.any(String),
      });
      // Not a type any webhook subscription can choose, and not on the topic webhooks read.
      expect(SUBSCRIBABLE_EVENT_TYPES as string[]).not.toContain(change.type);

      // A deactivation afterwards: the users topic carries the API's events only.
      await h
        .http()
        .post(`/v1/users/${login}/deactivate`)
        .set('X-Ordering-Identity', h.identity(tree.root, write))
        .expect(200);
      const published = await events.waitFor((es) => es.some((e) => e.type === 'user.deactivated'));
      expect(published.map((e) => e.type)).toEqual(['user.created', 'user.deactivated']);
      expect(mine(roles.messages)).toHaveLength(1);
    } finally {
      await Promise.all([roles.stop(), events.stop()]);
    }
  });

  it('PATCH outside the reach is 404 and changes nothing', async () => {
    const login = newLogin('keep');
    await h.admin.createUser({ ...body(login), cust_id: tree.root });
    const res = await h
      .http()
      .patch(`/v1/users/${login}`)
      .set('X-Ordering-Identity', h.identity(tree.child, write))
      .send({ name: 'X' });
    expect(res.status).toBe(404);
    const row = await h.knex('users').where({ login }).first();
    expect(row.name).toBe(`Name of ${login}`);
  });
});

describe('the admin role needs admin:all', () => {
  const asWriter = () => h.identity(tree.root, write);
  const asAdmin = () => h.identity(tree.root, ['admin:all']);

  it('a users:write token without admin:all cannot create an admin (403, challenge naming admin:all); admin:all can', async () => {
    const login = newLogin('boss');
    const refused = await h
      .http()
      .post('/v1/users')
      .set('X-Ordering-Identity', asWriter())
      .send(body(login, { roles: ['shopper', 'admin'] }));
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ type: 'permission_error', code: 'insufficient_scope' });
    expect(refused.headers['www-authenticate']).toBe('Bearer error="insufficient_scope", scope="admin:all"');
    expect(await h.knex('users').where({ login }).first()).toBeUndefined();
    const created = await h
      .http()
      .post('/v1/users')
      .set('X-Ordering-Identity', asAdmin())
      .send(body(login, { roles: ['shopper', 'admin'] }));
    expect(created.status).toBe(201);
    expect(created.body.roles).toEqual(expect.arrayContaining(['admin']));
  });

  it('nor grant it to a shopper, nor change an admin (its e-mail would hand over its sign-in); deactivating one is allowed', async () => {
    const shopper = newLogin('climber');
    await h.admin.createUser({ ...body(shopper), cust_id: tree.child });
    const grant = await h
      .http()
      .patch(`/v1/users/${shopper}`)
      .set('X-Ordering-Identity', asWriter())
      .send({ roles: ['shopper', 'admin'] });
    expect(grant.status).toBe(403);
    expect(grant.body.error.code).toBe('insufficient_scope');
    expect((await h.knex('users').where({ login: shopper }).first()).roles).toEqual(['shopper']);
    const approver = await h
      .http()
      .patch(`/v1/users/${shopper}`)
      .set('X-Ordering-Identity', asWriter())
      .send({ roles: ['shopper', 'approver'], department: 'Ops' });
    expect(approver.status).toBe(200);

    const admin = newLogin('chief');
    await h.admin.createUser({ ...body(admin), cust_id: tree.child, roles: ['admin'] });
    const takeover = await h
      .http()
      .patch(`/v1/users/${admin}`)
      .set('X-Ordering-Identity', asWriter())
      .send({ email: 'someone-else@example.com' });
    expect(takeover.status).toBe(403);
    expect((await h.knex('users').where({ login: admin }).first()).email).toBe(`${admin}@example.com`);
    const demote = await h
      .http()
      .patch(`/v1/users/${admin}`)
      .set('X-Ordering-Identity', asWriter())
      .send({ roles: ['shopper'] });
    expect(demote.status).toBe(403);
    const unchanged = await h
      .http()
      .patch(`/v1/users/${admin}`)
      .set('X-Ordering-Identity', asWriter())
      .send({ email: `${admin}@example.com`, roles: ['admin'] });
    expect(unchanged.status).toBe(200);
    const byAdmin = await h
      .http()
      .patch(`/v1/users/${admin}`)
      .set('X-Ordering-Identity', asAdmin())
      .send({ department: 'Board' });
    expect(byAdmin.status).toBe(200);
    const deactivated = await h
      .http()
      .post(`/v1/users/${admin}/deactivate`)
      .set('X-Ordering-Identity', asWriter());
    expect(deactivated.status).toBe(200);
    expect(deactivated.body.status).toBe('deactivated');
  });
});
