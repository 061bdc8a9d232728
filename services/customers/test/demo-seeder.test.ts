// The demo data the start command seeds (deploy/ops/seeders/customers.ts), against a running service.
import { DEMO_PASSWORD, seedCustomers } from '../../../deploy/ops/seeders/customers';
import type { DemoData } from '../../../deploy/local/stack-file';
import type { SeedContext } from '../../../deploy/ops/seed-demo-data';
import { type Harness, startHarness } from './support/customers-harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h?.stop());

function context(): SeedContext {
  return {
    procs: [{ name: 'customers', dir: '', port: Number(new URL(h.url).port), env: {} }],
    settings: {
      kafkaBrokers: [],
      pgBaseUrl: '',
      databasePrefix: '',
      redisKeyPrefix: '',
      redisUrl: '',
      internalIdentitySecret: h.secret,
      authIssuer: '',
      apiAudience: '',
    },
  };
}

async function seed(): Promise<DemoData> {
  const demo: DemoData = { customers: [], users: [], clients: [] };
  await seedCustomers(context(), demo);
  return demo;
}

it('seeds two top-level accounts, a child, addresses, an approval threshold with two approvers, and users who can sign in', async () => {
  const demo = await seed();
  const tops = demo.customers.filter((c) => c.parent_cust_id === null);
  expect(tops.length).toBeGreaterThanOrEqual(2);
  expect(demo.customers.some((c) => c.parent_cust_id !== null)).toBe(true);

  for (const c of demo.customers) {
    const account = (await h.admin.getCustomer(c.cust_id)) as unknown as {
      addresses: { type: string; default: boolean }[];
      approval_required_over: unknown;
    };
    expect(account.addresses.some((a) => a.type === 'shipping' && a.default)).toBe(true);
    const users = demo.users.filter((u) => u.cust_id === c.cust_id);
    expect(users.some((u) => u.roles.includes('admin'))).toBe(true);
    expect(users.some((u) => u.roles.includes('shopper') && !u.roles.includes('admin'))).toBe(true);
  }
  const acme = (await h.admin.getCustomer('ACME')) as unknown as {
    approval_required_over: { amount: number };
  };
  expect(acme.approval_required_over.amount).toBeGreaterThan(0);
  expect(
    demo.users.filter((u) => u.cust_id === 'ACME' && u.roles.includes('approver')).length,
  ).toBeGreaterThanOrEqual(2);

  for (const u of demo.users) {
    expect(u.password).toBe(DEMO_PASSWORD);
    const res = await h
      .http()
      .post('/internal/v1/credentials/verify')
      .set('X-Ordering-Identity', h.internalIdentity())
      .send({ login: u.login, password: u.password });
    expect(res.status).toBe(200);
    expect(res.body.user).toMatchObject({ login: u.login, cust_id: u.cust_id, roles: u.roles });
  }
});

it('seeding again changes nothing and answers the same demo data', async () => {
  const before = await h.knex('addresses').count({ n: '*' });
  const again = await seed();
  expect(again.customers.map((c) => c.cust_id)).toEqual(['ACME', 'ACME-WEST', 'GLOBEX']);
  expect(await h.knex('addresses').count({ n: '*' })).toEqual(before);
});
