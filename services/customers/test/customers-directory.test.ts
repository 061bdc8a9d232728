// Other services read accounts through @ordering/customers-client against this service's internal
// API: lineage (cached for its TTL), reach, accounts and users read fresh, and an unreachable
// customers service as 503 service_unavailable.
import { CustomersDirectory } from '@ordering/customers-client';
import { UnavailableError } from '@ordering/errors';
import { type Harness, createTree, startHarness } from './support/customers-harness';

let h: Harness;
let tree: { root: string; child: string; grandchild: string };
beforeAll(async () => {
  h = await startHarness();
  tree = await createTree(h, 'DIRECTORY');
});
afterAll(() => h?.stop());

const directory = (lineageTtlMs?: number) =>
  new CustomersDirectory({
    baseUrl: h.url,
    secret: h.secret,
    caller: 'catalog',
    ...(lineageTtlMs === undefined ? {} : { lineageTtlMs }),
  });

describe('CustomersDirectory', () => {
  it('answers reach from the lineage: an account reaches itself and its descendants only', async () => {
    const d = directory();
    expect(await d.withinReach(tree.root, tree.grandchild)).toEqual({
      cust_id: tree.grandchild,
      currency: 'EUR',
      lineage: [tree.grandchild, tree.child, tree.root],
    });
    expect(await d.withinReach(tree.child, tree.child)).toBeDefined();
    expect(await d.withinReach(tree.grandchild, tree.child)).toBeUndefined();
    expect(await d.withinReach(tree.root, `UNKNOWN-${h.suffix}`)).toBeUndefined();
  });

  it('caches a lineage for its TTL, and never caches an unknown account', async () => {
    const d = directory(60_000);
    const moved = `${tree.root}-MOVED`;
    expect(await d.lineage(moved)).toBeUndefined();
    await h.admin.createCustomer({ cust_id: moved, name: 'Moved Inc.', parent_cust_id: tree.root });
    expect((await d.lineage(moved))?.lineage).toEqual([moved, tree.root]);

    await h.admin.updateCustomer(moved, { parent_cust_id: tree.child });
    expect((await d.lineage(moved))?.lineage).toEqual([moved, tree.root]);
    expect((await directory(0).lineage(moved))?.lineage).toEqual([moved, tree.child, tree.root]);
    d.forget(moved);
    expect((await d.lineage(moved))?.lineage).toEqual([moved, tree.child, tree.root]);
  });

  it('renews a lineage read in the second half of its TTL in the background, never serving one older than the TTL', async () => {
    const ttl = 4_000;
    const d = directory(ttl);
    const moving = `${tree.root}-RENEWED`;
    await h.admin.createCustomer({ cust_id: moving, name: 'Renewed Inc.', parent_cust_id: tree.root });
    const firstRead = Date.now();
    expect((await d.lineage(moving))?.lineage).toEqual([moving, tree.root]);
    await h.admin.updateCustomer(moving, { parent_cust_id: tree.child });

    // First half of its life: the cached copy, nothing renewed.
    expect((await d.lineage(moving))?.lineage).toEqual([moving, tree.root]);
    await new Promise((resolve) => setTimeout(resolve, ttl / 2 + 200 - (Date.now() - firstRead)));
    // Second half: still the cached copy at once, and a renewal starts behind it ...
    expect((await d.lineage(moving))?.lineage).toEqual([moving, tree.root]);
    // ... so the move is seen before the first copy would have expired.
    let seen: string[] | undefined;
    while (Date.now() - firstRead < ttl - 300) {
      seen = (await d.lineage(moving))?.lineage;
      if (seen?.length === 3) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(seen).toEqual([moving, tree.child, tree.root]);
  });

  it('reads an account with its addresses and settings, and a user, fresh', async () => {
    await h.admin.addAddress(tree.child, {
      type: 'shipping',
      label: 'Dock',
      street_1: '1 Quay',
      city: 'Hamburg',
      region: 'HH',
      postal_code: '20457',
      country: 'DE',
    });
    const account = await directory().account(tree.child);
    expect(account).toMatchObject({ id: tree.child, currency: 'EUR', addresses: [{ label: 'Dock' }] });
    expect(await directory().account(`UNKNOWN-${h.suffix}`)).toBeUndefined();
    const login = `dir-${h.suffix.toLowerCase()}`;
    await h.admin.createUser({ cust_id: tree.child, login, email: `${login}@example.com`, name: 'Dir User' });
    expect(await directory().user(login)).toMatchObject({ login, cust_id: tree.child, status: 'active' });
    expect(await directory().user(`nobody-${h.suffix}`)).toBeUndefined();
  });

  it('caches accounts and users for their TTL when the caller asks; unknown ones never; fresh reads now', async () => {
    const d = new CustomersDirectory({
      baseUrl: h.url,
      secret: h.secret,
      caller: 'orders',
      accountTtlMs: 60_000,
      userTtlMs: 60_000,
    });
    const late = `${tree.root}-LATE`;
    expect(await d.account(late)).toBeUndefined();
    await h.admin.createCustomer({ cust_id: late, name: 'Late Inc.', parent_cust_id: tree.root });
    expect(await d.account(late)).toMatchObject({ id: late, name: 'Late Inc.' });

    await h.admin.updateCustomer(late, { name: 'Later Inc.' });
    expect(await d.account(late)).toMatchObject({ name: 'Late Inc.' });
    expect(await d.account(late, { fresh: true })).toMatchObject({ name: 'Later Inc.' });
    expect(await d.account(late)).toMatchObject({ name: 'Later Inc.' });

    const login = `dir-cached-${h.suffix.toLowerCase()}`;
    expect(await d.user(login)).toBeUndefined();
    await h.admin.createUser({ cust_id: late, login, email: `${login}@example.com`, name: 'First Name' });
    expect(await d.user(login)).toMatchObject({ login, name: 'First Name' });
    await h.admin.request('POST', `/internal/v1/admin/users/${login}/deactivate`);
    expect(await d.user(login)).toMatchObject({ status: 'active' });
    expect(await directory().user(login)).toMatchObject({ status: 'deactivated' });
    d.forgetUser(login);
    expect(await d.user(login)).toMatchObject({ status: 'deactivated' });
  });

  it("lists an account's reach, and the users of one account by role and status", async () => {
    const d = directory();
    expect(await d.reach(tree.grandchild)).toEqual([tree.grandchild]);
    expect(await d.reach(tree.root)).toEqual(
      expect.arrayContaining([tree.root, tree.child, tree.grandchild]),
    );
    expect(await d.reach(`UNKNOWN-${h.suffix}`)).toBeUndefined();
    const admin = `dir-admin-${h.suffix}`.toLowerCase();
    const gone = `dir-gone-${h.suffix}`.toLowerCase();
    const shopper = `dir-shop-${h.suffix}`.toLowerCase();
    for (const [login, roles] of [
      [admin, ['admin']],
      [gone, ['admin']],
      [shopper, ['shopper']],
    ] as const) {
      await h.admin.createUser({
        login,
        cust_id: tree.child,
        name: login,
        email: `${login}@example.com`,
        roles,
      });
    }
    await h.admin.request('POST', `/internal/v1/admin/users/${gone}/deactivate`);
    const admins = await d.accountUsers(tree.child, { role: 'admin', status: 'active' });
    expect(admins.map((u) => u.login)).toEqual([admin]);
    expect((await d.accountUsers(tree.child)).map((u) => u.login)).toEqual(
      expect.arrayContaining([admin, gone, shopper]),
    );
    expect((await d.accountUsers(tree.child)).every((u) => u.cust_id === tree.child)).toBe(true);
    // Only that account's users, not its descendants'.
    expect(await d.accountUsers(tree.grandchild, { role: 'admin' })).toEqual([]);
    expect(await d.accountUsers(`UNKNOWN-${h.suffix}`)).toEqual([]);
  });

  it('turns an unreachable customers service into 503 service_unavailable', async () => {
    const down = new CustomersDirectory({
      baseUrl: 'http://127.0.0.1:1',
      secret: h.secret,
      caller: 'catalog',
    });
    const err = await down.lineage(tree.root).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnavailableError);
    expect(err).toMatchObject({ status: 503, code: 'service_unavailable' });
  });
});
