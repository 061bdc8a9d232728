// GET /v1/orders at volume through the gateway of a running platform (`./dev up`): adds 180,000
// orders (one line each) to the platform's own orders database, 100,000 for ACME, 20,000 for its
// sub-account ACME-WEST and 60,000 for GLOBEX (once; their ids are `ord_000...`), takes an
// `acme-s2s` token and times each documented filter at limit 10 and 100, on the first page and after
// a cursor half-way down the list (built as next_cursor is). Prints figures; it is not a timed test.
// The orders stay in the platform's database until `./dev up --fresh`.
//
//   ./dev up   (in another terminal), then:
//   pnpm --filter @ordering/orders-service bench:lists:http   [DATABASE_NAME_PREFIX=...]
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createKnex } from '@ordering/db';

const PG_BASE_URL = process.env.DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432';
const url = `${PG_BASE_URL}/${process.env.DATABASE_NAME_PREFIX ?? ''}orders`;
const stack = JSON.parse(
  fs.readFileSync(path.resolve(__dirname, '..', '..', '..', '.local', 'stack.json'), 'utf8'),
) as {
  api_base_url: string;
  auth_url: string;
  demo: { clients: { client_id: string; client_secret?: string }[] };
};
const TREE = "('ACME','ACME-WEST')";

const cases: [string, string, string][] = [
  ['tree (ACME and ACME-WEST)', '', `cust_id in ${TREE}`],
  ['cust_id=ACME-WEST', 'cust_id=ACME-WEST', "cust_id = 'ACME-WEST'"],
  [
    'status=pending_approval',
    'status=pending_approval',
    `cust_id in ${TREE} and status = 'pending_approval'`,
  ],
  [
    'created_after (30 days)',
    'created_after=2026-10-02T00:00:00Z',
    `cust_id in ${TREE} and submitted_at >= '2026-10-02'`,
  ],
  [
    'status=approved, created_after',
    'status=approved&created_after=2026-06-01T00:00:00Z',
    `cust_id in ${TREE} and status = 'approved' and submitted_at >= '2026-06-01'`,
  ],
];

async function main(): Promise<void> {
  const knex = createKnex({ url, pool: { min: 1, max: 1 } });
  try {
    const [{ n }] = (await knex('orders').where('id', 'like', 'ord_000%').count({ n: '*' })) as [
      { n: string },
    ];
    if (Number(n) === 0) {
      await knex.transaction(async (trx) => {
        await trx.raw(`
          INSERT INTO orders (id, cust_id, ordered_by_login, ordered_by_name, status, currency, subtotal, tax,
            shipping, total, shipping_address, submitted_at, updated_at)
          SELECT 'ord_' || lpad(g::text, 26, '0'),
            CASE WHEN g <= 100000 THEN 'ACME' WHEN g <= 120000 THEN 'ACME-WEST' ELSE 'GLOBEX' END,
            CASE WHEN g % 50 = 0 THEN 'sam.shopper' ELSE 'buyer' || (g % 200) END, 'Buyer',
            (ARRAY['delivered','delivered','delivered','delivered','delivered','delivered','delivered',
                   'shipped','shipped','in_production','approved','pending_approval','cancelled',
                   'delivered','delivered','delivered','delivered','delivered','delivered','delivered'])[1 + g % 20],
            'USD', 10000, 800, 500, 11300, '{"street_1":"1 Main St","city":"Springfield","country":"US"}',
            timestamptz '2026-11-01' - ((g::bigint * 7919) % 180000) * interval '5 minutes', now()
          FROM generate_series(1, 180000) g`);
        await trx.raw(`
          INSERT INTO order_items (id, order_id, position, item_code, description, quantity, unit_price, line_total)
          SELECT id || '_0', id, 0, 'SKU-1', 'Item', 1, 10000, 10000 FROM orders WHERE id LIKE 'ord_000%'`);
      });
      await knex.raw('ANALYZE orders; ANALYZE order_items');
    }
    const client = stack.demo.clients.find((c) => c.client_id === 'acme-s2s')!;
    const res = await fetch(`${stack.auth_url}/oauth/token`, {
      method: 'POST',
      headers: {
        Authorization: `Basic ${Buffer.from(`${client.client_id}:${client.client_secret}`).toString('base64')}`,
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', scope: 'orders:read' }),
    });
    const { access_token: token } = (await res.json()) as { access_token: string };
    console.log(
      `load average ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(' ')}, ${os.cpus().length} cores`,
    );
    console.log('case | orders matching | limit | page | ms, median of 7 (min-max) | has_more');
    for (const [name, query, where] of cases) {
      const [{ total }] = (await knex('orders').whereRaw(where).count({ total: '*' })) as [{ total: string }];
      const middle = (await knex('orders')
        .whereRaw(where)
        .select('submitted_at', 'id')
        .orderBy([
          { column: 'submitted_at', order: 'desc' },
          { column: 'id', order: 'desc' },
        ])
        .offset(Math.floor(Number(total) / 2))
        .first()) as { submitted_at: Date; id: string };
      const cursor = Buffer.from(
        JSON.stringify({ t: middle.submitted_at.toISOString(), id: middle.id }),
      ).toString('base64url');
      for (const limit of [10, 100]) {
        for (const page of ['first', 'deep']) {
          const params = [`limit=${limit}`, query, page === 'deep' ? `starting_after=${cursor}` : '']
            .filter(Boolean)
            .join('&');
          const times: number[] = [];
          let body: { has_more?: boolean } = {};
          for (let i = 0; i < 7; i++) {
            const t0 = performance.now();
            const r = await fetch(`${stack.api_base_url}orders?${params}`, {
              headers: { Authorization: `Bearer ${token}` },
            });
            body = (await r.json()) as { has_more?: boolean };
            times.push(performance.now() - t0);
            if (r.status !== 200) throw new Error(`${r.status} ${JSON.stringify(body)}`);
          }
          times.sort((a, b) => a - b);
          console.log(
            `${name} | ${total} | ${limit} | ${page} | ${times[3]!.toFixed(1)} (${times[0]!.toFixed(1)}-${times[6]!.toFixed(1)}) | ${body.has_more}`,
          );
        }
      }
    }
  } finally {
    await knex.destroy();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
