// Demo approval chain and demo orders: ACME's two-step chain (adam.approver, then april.approver)
// and orders of sam.shopper in every status, some under ACME's $1,000.00 threshold and some above
// it. Written through the orders and approvals services' own endpoints with the identity the
// gateway would forward for the demo users, fulfilment through the fulfilment topic as the ERP
// would. Idempotent: each order is placed with a fixed Idempotency-Key (a re-run within 24 h
// replays it) and each step is taken only when the order is still where the step starts.
import { randomUUID } from 'node:crypto';
import { FulfilmentUpdate, TOPICS } from '@ordering/contracts';
import { signIdentity } from '@ordering/http';
import type { StackProcess } from '../../local/stack-definition';
import { publishMessage } from '../publish';
import type { SeedContext } from '../seed-demo-data';

const ACME = 'ACME';
const CHAIN = ['adam.approver', 'april.approver'];

type Step = 'approve' | 'approve_first' | 'reject' | 'cancel' | 'in_production' | 'shipped' | 'delivered';

interface DemoOrder {
  key: string;
  items: [string, number][];
  po: string;
  /** What happens to it after placing, in order. */
  steps: Step[];
}

/** Under $1,000.00: approved at once. Above: through the chain. */
export const DEMO_ORDERS: DemoOrder[] = [
  {
    key: 'demo-order-delivered',
    po: 'PO-1001',
    items: [
      ['PAP-A4-500', 10],
      ['PEN-BLU-12', 5],
    ],
    steps: ['in_production', 'shipped', 'delivered'],
  },
  {
    key: 'demo-order-shipped',
    po: 'PO-1002',
    items: [
      ['STP-DESK', 12],
      ['STA-26-5K', 20],
    ],
    steps: ['in_production', 'shipped'],
  },
  {
    key: 'demo-order-in-production',
    po: 'PO-1003',
    items: [
      ['MSE-WL-01', 4],
      ['KBD-WL-US', 4],
    ],
    steps: ['in_production'],
  },
  {
    key: 'demo-order-approved',
    po: 'PO-1004',
    items: [
      ['CFE-BEAN-1K', 10],
      ['TEA-GRN-100', 5],
    ],
    steps: [],
  },
  { key: 'demo-order-pending-adam', po: 'PO-1005', items: [['CHR-ERG-01', 6]], steps: [] },
  { key: 'demo-order-pending-april', po: 'PO-1006', items: [['MON-27-4K', 4]], steps: ['approve_first'] },
  { key: 'demo-order-approved-by-chain', po: 'PO-1007', items: [['DSK-STD-140', 3]], steps: ['approve'] },
  { key: 'demo-order-rejected', po: 'PO-1008', items: [['CHR-ERG-01', 5]], steps: ['reject'] },
  { key: 'demo-order-cancelled', po: 'PO-1009', items: [['NTB-A5-DOT', 10]], steps: ['cancel'] },
];

type Json = Record<string, unknown>;

function caller(ctx: SeedContext, name: 'orders' | 'approvals' | 'customers') {
  const proc = ctx.procs.find((p: StackProcess) => p.name === name);
  if (!proc) throw new Error(`${name} is not running`);
  return async (
    who: { login: string; scopes: string[] },
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const identity = signIdentity(
      {
        sub: `shopper:${ACME.toLowerCase()}:${who.login}`,
        cust_id: ACME,
        login: who.login,
        client_id: 'demo-seeder',
        scopes: who.scopes,
        jti: randomUUID(),
        exp: Math.floor(Date.now() / 1000) + 300,
      },
      ctx.settings.internalIdentitySecret,
    );
    const res = await fetch(`http://127.0.0.1:${proc.port}${path}`, {
      method,
      headers: {
        'X-Ordering-Identity': identity,
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json = (await res.json()) as Json;
    if (res.status >= 400)
      throw new Error(`${method} ${path} answered ${res.status}: ${JSON.stringify(json)}`);
    return json;
  };
}

async function until<T>(probe: () => Promise<T | undefined>, what: string, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`demo orders: timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export async function seedOrders(ctx: SeedContext): Promise<void> {
  if (!ctx.procs.some((p) => p.name === 'approvals') || !ctx.procs.some((p) => p.name === 'catalog')) return;
  const orders = caller(ctx, 'orders');
  const approvals = caller(ctx, 'approvals');
  const customers = caller(ctx, 'customers');
  const admin = { login: 'alice.admin', scopes: ['admin:all'] };
  const sam = { login: 'sam.shopper', scopes: ['orders:read', 'orders:write'] };
  const approver = (login: string) => ({ login, scopes: ['orders:read', 'orders:write'] });

  await approvals(admin, 'PUT', `/v1/customers/${ACME}/approval_chain`, {
    steps: CHAIN.map((approver) => ({ approver })),
  });
  const account = await customers(admin, 'GET', `/v1/customers/${ACME}`);
  const address = (account.addresses as { id: string; type: string }[]).find(
    (a) => a.type === 'shipping',
  )!.id;

  const statusOf = async (id: string) => (await orders(admin, 'GET', `/v1/orders/${id}`)).status as string;
  const decide = async (login: string, orderId: string, action: 'approve' | 'reject') => {
    // A second `./dev up` over the same databases finds the steps it took before already decided
    // (the order is found again by its Idempotency-Key): a step decided is left as it is.
    const approval = await until(async () => {
      for (const status of ['pending', 'approved', 'rejected'] as const) {
        const queue = await approvals(
          approver(login),
          'GET',
          `/v1/approvals?approver=${login}&status=${status}&limit=100`,
        );
        const found = (queue.data as { id: string; order_id: string; status: string }[]).find(
          (a) => a.order_id === orderId,
        );
        if (found) return found;
      }
      return undefined;
    }, `${login}'s approval of ${orderId}`);
    if (approval.status !== 'pending') return;
    await approvals(
      approver(login),
      'POST',
      `/v1/approvals/${approval.id}/${action}`,
      action === 'reject'
        ? { reason: "Over this quarter's furniture budget" }
        : { comment: 'Approved for the demo' },
    );
  };
  const fulfil = async (orderId: string, status: 'in_production' | 'shipped' | 'delivered') => {
    const update = FulfilmentUpdate.parse({
      id: `ful_demo_${orderId}_${status}`,
      order_id: orderId,
      status,
      occurred_at: new Date().toISOString(),
      ...(status === 'shipped'
        ? {
            shipment: {
              carrier: 'UPS',
              tracking_number: `1Z${orderId.slice(-10)}`,
              shipped_at: new Date().toISOString(),
              estimated_delivery: new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10),
            },
          }
        : {}),
    });
    await publishMessage(ctx.settings.kafkaBrokers, TOPICS.fulfilment, orderId, update);
    await until(
      async () => ((await statusOf(orderId)) === status ? true : undefined),
      `${orderId} ${status}`,
    );
  };

  for (const demo of DEMO_ORDERS) {
    const order = await orders(
      sam,
      'POST',
      '/v1/orders',
      {
        cust_id: ACME,
        shipping_address_id: address,
        po_number: demo.po,
        cost_center: 'CC-100',
        items: demo.items.map(([item_code, quantity]) => ({ item_code, quantity })),
      },
      { 'Idempotency-Key': demo.key },
    );
    const id = order.id as string;
    for (const step of demo.steps) {
      const now = await statusOf(id);
      if (step === 'approve_first' && now === 'pending_approval') await decide(CHAIN[0]!, id, 'approve');
      if (step === 'approve' && now === 'pending_approval') {
        await decide(CHAIN[0]!, id, 'approve');
        await decide(CHAIN[1]!, id, 'approve');
        await until(async () => ((await statusOf(id)) === 'approved' ? true : undefined), `${id} approved`);
      }
      if (step === 'reject' && now === 'pending_approval') {
        await decide(CHAIN[0]!, id, 'reject');
        await until(async () => ((await statusOf(id)) === 'cancelled' ? true : undefined), `${id} rejected`);
      }
      if (step === 'cancel' && (now === 'approved' || now === 'pending_approval')) {
        await orders(sam, 'POST', `/v1/orders/${id}/cancel`, { reason: 'Ordered twice by mistake' });
      }
      const fulfilment = ['in_production', 'shipped', 'delivered'] as const;
      const ladder = ['approved', 'in_production', 'shipped', 'delivered'];
      if (
        (fulfilment as readonly string[]).includes(step) &&
        ladder.indexOf(now) === ladder.indexOf(step) - 1
      ) {
        await fulfil(id, step as (typeof fulfilment)[number]);
      }
    }
  }
}
