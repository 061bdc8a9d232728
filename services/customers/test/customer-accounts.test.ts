// Accounts in hierarchies: reach of a token, listing and pagination, cycles refused, addresses.
import { Customer } from '@ordering/contracts';
import { type Harness, createTree, startHarness } from './support/customers-harness';

let h: Harness;
let tree: { root: string; child: string; grandchild: string };

beforeAll(async () => {
  h = await startHarness();
  tree = await createTree(h, 'ACME');
  await h.admin.createCustomer({ cust_id: `GLOBEX-${h.suffix}`, name: 'Globex' });
});
afterAll(() => h?.stop());

const read = ['orders:read'];

describe('reach of a token', () => {
  it('a token of the child account cannot see the parent (404 resource_missing)', async () => {
    const res = await h
      .http()
      .get(`/v1/customers/${tree.root}`)
      .set('X-Ordering-Identity', h.identity(tree.child, read));
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ type: 'invalid_request', code: 'resource_missing' });
    expect(res.body.error.request_id).toBe(res.headers['x-request-id']);
  });

  it('a token of the parent sees its child and grandchild', async () => {
    for (const id of [tree.child, tree.grandchild]) {
      const res = await h
        .http()
        .get(`/v1/customers/${id}`)
        .set('X-Ordering-Identity', h.identity(tree.root, read));
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ id, object: 'customer', addresses: [] });
    }
  });

  it('an unknown account and another tree answer the same 404', async () => {
    const other = await h
      .http()
      .get(`/v1/customers/GLOBEX-${h.suffix}`)
      .set('X-Ordering-Identity', h.identity(tree.root, read));
    const unknown = await h
      .http()
      .get(`/v1/customers/NOPE-${h.suffix}`)
      .set('X-Ordering-Identity', h.identity(tree.root, read));
    expect(other.status).toBe(404);
    expect(unknown.status).toBe(404);
    expect(other.body.error.code).toBe(unknown.body.error.code);
  });

  it('GET /v1/customers lists exactly the token account and its descendants', async () => {
    const res = await h.http().get('/v1/customers').set('X-Ordering-Identity', h.identity(tree.child, read));
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      object: 'list',
      url: '/v1/customers',
      has_more: false,
      next_cursor: null,
    });
    expect(res.body.data.map((c: { id: string }) => c.id)).toEqual([tree.child, tree.grandchild]);
  });

  it('filters by parent_cust_id and pages with next_cursor without gaps or duplicates', async () => {
    const filtered = await h
      .http()
      .get(`/v1/customers?parent_cust_id=${tree.root}`)
      .set('X-Ordering-Identity', h.identity(tree.root, read));
    expect(filtered.body.data.map((c: { id: string }) => c.id)).toEqual([tree.child]);

    const seen: string[] = [];
    let cursor: string | null = null as string | null;
    do {
      const res = await h
        .http()
        .get(`/v1/customers?limit=1${cursor ? `&starting_after=${cursor}` : ''}`)
        .set('X-Ordering-Identity', h.identity(tree.root, read));
      expect(res.status).toBe(200);
      seen.push(...res.body.data.map((c: { id: string }) => c.id));
      cursor = res.body.has_more ? res.body.next_cursor : null;
    } while (cursor);
    expect(seen).toEqual([tree.root, tree.child, tree.grandchild]);
  });

  it('needs orders:read or admin:all, and a valid identity', async () => {
    const noScope = await h
      .http()
      .get('/v1/customers')
      .set('X-Ordering-Identity', h.identity(tree.root, ['users:read']));
    expect(noScope.status).toBe(403);
    expect(noScope.body.error.code).toBe('insufficient_scope');
    const admin = await h
      .http()
      .get('/v1/customers')
      .set('X-Ordering-Identity', h.identity(tree.root, ['admin:all']));
    expect(admin.status).toBe(200);
    const anonymous = await h.http().get('/v1/customers');
    expect(anonymous.status).toBe(401);
  });

  it('limit outside 1..100 is 422 invalid_value with param limit', async () => {
    const res = await h
      .http()
      .get('/v1/customers?limit=101')
      .set('X-Ordering-Identity', h.identity(tree.root, read));
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'invalid_value', param: 'limit' });
  });
});

describe('hierarchy changes', () => {
  it('refuses to make an account the child of its own descendant (a cycle)', async () => {
    await expect(
      h.admin.updateCustomer(tree.root, { parent_cust_id: tree.grandchild }),
    ).rejects.toMatchObject({
      status: 422,
      body: { error: { code: 'hierarchy_cycle', param: 'parent_cust_id' } },
    });
    await expect(h.admin.updateCustomer(tree.root, { parent_cust_id: tree.root })).rejects.toMatchObject({
      status: 422,
    });
    const root = await h.admin.getCustomer(tree.root);
    expect(root).toMatchObject({ parent_cust_id: null });
  });

  it('moves a subtree under another account, and reach follows', async () => {
    const other = `INITECH-${h.suffix}`;
    await h.admin.createCustomer({ cust_id: other, name: 'Initech' });
    const sub = `${other}-SUB`;
    await h.admin.createCustomer({ cust_id: sub, name: 'Initech sub' });
    await h.admin.updateCustomer(sub, { parent_cust_id: other });
    const reach = await h
      .http()
      .get(`/internal/v1/customers/${other}/reach`)
      .set('X-Ordering-Identity', h.internalIdentity());
    expect(reach.body.cust_ids.sort()).toEqual([other, sub].sort());
    const lineage = await h
      .http()
      .get(`/internal/v1/customers/${sub}/lineage`)
      .set('X-Ordering-Identity', h.internalIdentity());
    expect(lineage.body).toEqual({ cust_id: sub, currency: 'USD', lineage: [sub, other] });
  });

  it('gives other services the lineage of an account (itself up to its top-level account) and its currency', async () => {
    const res = await h
      .http()
      .get(`/internal/v1/customers/${tree.grandchild}/lineage`)
      .set('X-Ordering-Identity', h.internalIdentity());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      cust_id: tree.grandchild,
      currency: 'EUR',
      lineage: [tree.grandchild, tree.child, tree.root],
    });
    const unknown = await h
      .http()
      .get(`/internal/v1/customers/NOPE-${h.suffix}/lineage`)
      .set('X-Ordering-Identity', h.internalIdentity());
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'resource_missing', param: 'cust_id' });
    const notInternal = await h
      .http()
      .get(`/internal/v1/customers/${tree.root}/lineage`)
      .set('X-Ordering-Identity', h.identity(tree.root, ['admin:all']));
    expect(notInternal.status).toBe(403);
  });
});

describe('account settings and addresses', () => {
  it('shows currency, approval threshold as Money and billing terms', async () => {
    const res = await h
      .http()
      .get(`/v1/customers/${tree.root}`)
      .set('X-Ordering-Identity', h.identity(tree.root, read));
    expect(res.body).toMatchObject({
      parent_cust_id: null,
      currency: 'USD',
      approval_required_over: { amount: 50000, currency: 'USD' },
      billing_terms: 'net_30',
    });
    expect(new Date(res.body.created_at).toISOString()).toBe(res.body.created_at);
    expect(Customer.safeParse(res.body).error).toBeUndefined();
  });

  it('keeps one default address per type: the first is default, a new default replaces it', async () => {
    const custId = tree.grandchild;
    const base = {
      label: 'HQ',
      street_1: 'Hauptstr. 1',
      city: 'Berlin',
      region: 'BE',
      postal_code: '10115',
      country: 'DE',
    };
    const first = await h.admin.addAddress(custId, { ...base, type: 'shipping' });
    const billing = await h.admin.addAddress(custId, { ...base, type: 'billing' });
    const second = await h.admin.addAddress(custId, {
      ...base,
      type: 'shipping',
      label: 'Dock',
      default: true,
    });
    const res = await h
      .http()
      .get(`/v1/customers/${custId}`)
      .set('X-Ordering-Identity', h.identity(custId, read));
    const byId = Object.fromEntries(res.body.addresses.map((a: { id: string }) => [a.id, a]));
    expect(byId[first.id]).toMatchObject({ type: 'shipping', default: false });
    expect(byId[second.id]).toMatchObject({ type: 'shipping', default: true, label: 'Dock' });
    expect(byId[billing.id]).toMatchObject({ type: 'billing', default: true });
    expect(Customer.safeParse(res.body).error).toBeUndefined();
  });

  it('changes an address; moving the default flag needs another address marked default', async () => {
    const custId = `${tree.root}-ADDR`;
    await h.admin.createCustomer({ cust_id: custId, name: 'Addr', parent_cust_id: tree.root });
    const base = {
      type: 'shipping',
      street_1: '1 A St',
      city: 'Austin',
      region: 'TX',
      postal_code: '73301',
      country: 'US',
    };
    const a = await h.admin.addAddress(custId, { ...base, label: 'A' });
    const b = await h.admin.addAddress(custId, { ...base, label: 'B' });
    const path = (id: string) => `/internal/v1/admin/customers/${custId}/addresses/${id}`;

    const renamed = await h.admin.request('PATCH', path(b.id), { label: 'B2', postal_code: '73344' });
    expect(renamed).toMatchObject({
      id: b.id,
      label: 'B2',
      postal_code: '73344',
      street_1: '1 A St',
      default: false,
    });

    await expect(h.admin.request('PATCH', path(a.id), { default: false })).rejects.toMatchObject({
      status: 422,
      body: { error: { param: 'default' } },
    });
    await h.admin.request('PATCH', path(b.id), { default: true });
    const account = (await h.admin.getCustomer(custId)) as unknown as {
      addresses: { id: string; default: boolean }[];
    };
    expect(account.addresses.map((x) => [x.id, x.default])).toEqual([
      [a.id, false],
      [b.id, true],
    ]);
    await expect(
      h.admin.request('PATCH', `/internal/v1/admin/customers/${tree.root}/addresses/${a.id}`, { label: 'x' }),
    ).rejects.toMatchObject({
      status: 404,
    });
  });

  it('refuses an address type other than shipping or billing, naming the field', async () => {
    await expect(
      h.admin.addAddress(tree.child, {
        type: 'warehouse',
        label: 'x',
        street_1: 'x',
        city: 'x',
        region: '',
        postal_code: '',
        country: 'DE',
      }),
    ).rejects.toMatchObject({ status: 422, body: { error: { code: 'invalid_value', param: 'type' } } });
  });

  it('other services read an account with addresses and settings through the internal API only', async () => {
    const internal = await h
      .http()
      .get(`/internal/v1/customers/${tree.root}`)
      .set('X-Ordering-Identity', h.internalIdentity());
    expect(internal.status).toBe(200);
    expect(internal.body).toMatchObject({ id: tree.root, jit_provisioning: false, email_domains: [] });
    const customerToken = await h
      .http()
      .get(`/internal/v1/customers/${tree.root}`)
      .set('X-Ordering-Identity', h.identity(tree.root, ['admin:all']));
    expect(customerToken.status).toBe(403);
  });
});

describe('concurrent account creation', () => {
  it('of two creations of one cust_id, one answers 201 and the other 409 customer_exists', async () => {
    const id = `RACE-${h.suffix}`;
    const results = await Promise.allSettled([
      h.admin.createCustomer({ cust_id: id, name: 'one' }),
      h.admin.createCustomer({ cust_id: id, name: 'two' }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(['fulfilled', 'rejected']);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason).toMatchObject({ status: 409, body: { error: { code: 'customer_exists' } } });
  });
});
