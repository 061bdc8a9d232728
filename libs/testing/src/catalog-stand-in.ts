// A stand-in for the catalog service's internal pricing call (libs/contracts
// internal/catalog-pricing.ts), for component tests only: a few items with price tiers, one
// unavailable item, and a switch that makes it fail like a catalog that is down.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { CATALOG_PRICES_PATH, PriceLinesRequest } from '@ordering/contracts';

export interface StandInItem {
  name: string;
  tiers: { min_qty: number; amount: number }[];
  available?: boolean;
}

/** Prices of the tests (USD cents): tiers by quantity. */
export const STAND_IN_ITEMS: Record<string, StandInItem> = {
  'PAPER-A4': {
    name: 'Copy paper A4, 500 sheets',
    tiers: [
      { min_qty: 1, amount: 899 },
      { min_qty: 10, amount: 849 },
      { min_qty: 50, amount: 799 },
    ],
  },
  'PEN-BLUE': {
    name: 'Ballpoint pen, blue',
    tiers: [
      { min_qty: 1, amount: 129 },
      { min_qty: 100, amount: 99 },
    ],
  },
  'CHAIR-ERGO': {
    name: 'Ergonomic office chair',
    tiers: [
      { min_qty: 1, amount: 34_900 },
      { min_qty: 5, amount: 32_900 },
    ],
  },
  'DESK-OLD': { name: 'Discontinued desk', tiers: [{ min_qty: 1, amount: 19_900 }], available: false },
  /** Priced so that 10,000 of them are beyond the largest exact amount (2^53 - 1). */
  'YACHT-XL': { name: 'Ocean-going yacht', tiers: [{ min_qty: 1, amount: 1_000_000_000_000 }] },
};

export interface CatalogStandIn {
  url: string;
  /** How many pricing calls it answered. */
  calls: number;
  /** While set, every call answers 500 (the catalog is failing). */
  failing: boolean;
  close(): Promise<void>;
}

export async function startCatalogStandIn(
  currencyOf: (custId: string) => string = () => 'USD',
): Promise<CatalogStandIn> {
  const state = { calls: 0, failing: false };
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      if (req.method !== 'POST' || req.url !== CATALOG_PRICES_PATH) return void res.writeHead(404).end();
      state.calls += 1;
      if (state.failing) return void res.writeHead(500).end('{}');
      const request = PriceLinesRequest.parse(JSON.parse(body));
      const currency = currencyOf(request.cust_id);
      const lines = request.lines.map((line) => {
        const item = STAND_IN_ITEMS[line.item_code];
        if (!item)
          return { ...line, error: { code: 'invalid_item', message: `No such item: ${line.item_code}` } };
        if (item.available === false) {
          return {
            ...line,
            error: { code: 'item_unavailable', message: `${line.item_code} is not available` },
          };
        }
        // The best (lowest) price among the tiers whose min_qty <= quantity, as the catalog prices.
        const tier = item.tiers
          .filter((t) => t.min_qty <= line.quantity)
          .reduce((best, t) => (t.amount < best.amount ? t : best));
        if (!Number.isSafeInteger(tier.amount * line.quantity)) {
          return {
            ...line,
            error: { code: 'amount_too_large', message: `The line total of ${line.item_code} is too large` },
          };
        }
        return {
          ...line,
          item_id: `item_${line.item_code}`,
          description: item.name,
          unit_price: { amount: tier.amount, currency },
          line_total: { amount: tier.amount * line.quantity, currency },
          lead_time_days: 2,
        };
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'price_quote', cust_id: request.cust_id, currency, lines }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(state, {
    url,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }) as CatalogStandIn;
}
