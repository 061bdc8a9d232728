// Demo accounts, addresses and users of the customers service, created through its internal admin
// endpoints. Idempotent: what exists already is kept (passwords are set again to the known ones).
import { AdminApiError, CustomersAdminClient } from '@ordering/customers-service';
import type { DemoCustomer, DemoData, DemoUser } from '../../local/stack-file';
import type { SeedContext } from '../seed-demo-data';

/** Every demo user signs in with this password. */
export const DEMO_PASSWORD = 'demo-password-2026';

interface DemoAccount extends DemoCustomer {
  currency: string;
  approval_required_over: number | null;
  billing_terms: string;
  email_domains: string[];
  jit_provisioning: boolean;
  addresses: Record<string, unknown>[];
}

const address = (
  type: 'shipping' | 'billing',
  label: string,
  street_1: string,
  city: string,
  region: string,
  postal_code: string,
  country: string,
) => ({
  type,
  label,
  street_1,
  city,
  region,
  postal_code,
  country,
});

export const DEMO_ACCOUNTS: DemoAccount[] = [
  {
    cust_id: 'ACME',
    name: 'Acme Corporation',
    parent_cust_id: null,
    currency: 'USD',
    // Orders above $1,000.00 need approval.
    approval_required_over: 100000,
    billing_terms: 'net_30',
    email_domains: ['acme.example'],
    jit_provisioning: true,
    addresses: [
      {
        ...address('shipping', 'Headquarters', '100 Acme Way', 'Springfield', 'IL', '62701', 'US'),
        attention: 'Receiving',
      },
      address('billing', 'Accounts payable', '100 Acme Way', 'Springfield', 'IL', '62701', 'US'),
    ],
  },
  {
    cust_id: 'ACME-WEST',
    name: 'Acme West Coast',
    parent_cust_id: 'ACME',
    currency: 'USD',
    approval_required_over: 50000,
    billing_terms: 'net_30',
    email_domains: [],
    jit_provisioning: false,
    addresses: [
      address('shipping', 'Oakland warehouse', '2500 Harbor Blvd', 'Oakland', 'CA', '94607', 'US'),
      address('billing', 'West billing', '2500 Harbor Blvd', 'Oakland', 'CA', '94607', 'US'),
    ],
  },
  {
    cust_id: 'GLOBEX',
    name: 'Globex Industries',
    parent_cust_id: null,
    currency: 'USD',
    approval_required_over: null,
    billing_terms: 'net_15',
    email_domains: ['globex.example'],
    jit_provisioning: false,
    addresses: [
      address('shipping', 'Cypress Creek plant', '1 Globex Plaza', 'Cypress Creek', 'OR', '97301', 'US'),
      address('billing', 'Finance', '1 Globex Plaza', 'Cypress Creek', 'OR', '97301', 'US'),
    ],
  },
];

type Role = 'shopper' | 'approver' | 'admin';
const user = (login: string, cust_id: string, name: string, roles: Role[]) => ({
  login,
  cust_id,
  name,
  roles,
});

export const DEMO_USERS = [
  user('alice.admin', 'ACME', 'Alice Admin', ['admin', 'shopper']),
  user('adam.approver', 'ACME', 'Adam Approver', ['approver', 'shopper']),
  user('april.approver', 'ACME', 'April Approver', ['approver', 'shopper']),
  user('sam.shopper', 'ACME', 'Sam Shopper', ['shopper']),
  user('wes.admin', 'ACME-WEST', 'Wes Admin', ['admin', 'shopper']),
  user('wendy.shopper', 'ACME-WEST', 'Wendy Shopper', ['shopper']),
  user('gina.admin', 'GLOBEX', 'Gina Admin', ['admin', 'shopper']),
  user('greg.shopper', 'GLOBEX', 'Greg Shopper', ['shopper']),
];

const domainOf = (custId: string) => (custId.startsWith('GLOBEX') ? 'globex.example' : 'acme.example');

function isConflict(err: unknown): boolean {
  return err instanceof AdminApiError && err.status === 409;
}

export async function seedCustomers(ctx: SeedContext, demo: DemoData): Promise<void> {
  const proc = ctx.procs.find((p) => p.name === 'customers');
  if (!proc) return;
  const client = new CustomersAdminClient({
    baseUrl: `http://127.0.0.1:${proc.port}`,
    internalIdentitySecret: ctx.settings.internalIdentitySecret,
    operator: 'seeder',
  });

  for (const { addresses, ...account } of DEMO_ACCOUNTS) {
    try {
      await client.createCustomer({ ...account, addresses });
    } catch (err) {
      if (!isConflict(err)) throw err;
    }
    demo.customers.push({
      cust_id: account.cust_id,
      name: account.name,
      parent_cust_id: account.parent_cust_id,
    });
  }

  for (const u of DEMO_USERS) {
    try {
      await client.createUser({ ...u, email: `${u.login}@${domainOf(u.cust_id)}`, password: DEMO_PASSWORD });
    } catch (err) {
      if (!isConflict(err)) throw err;
      await client.setPassword(u.login, DEMO_PASSWORD);
    }
    const entry: DemoUser = { login: u.login, password: DEMO_PASSWORD, cust_id: u.cust_id, roles: u.roles };
    demo.users.push(entry);
  }
}
