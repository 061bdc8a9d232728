// The money of an order (decisions.md "Money, totals"): integers in the currency's minor unit,
// `subtotal` = sum of the catalog's line totals, `tax` from the rate of the shipping address's
// country/region applied once to the subtotal and rounded half-up once per order, `shipping` from
// the subtotal's band, `total = subtotal + tax + shipping`. The tables are small, documented in the
// README and tested against hand-computed orders.
import { InputError } from '@ordering/errors';

/** Tax rates in basis points (1/100 of a percent), by `COUNTRY-REGION`, then by `COUNTRY`. */
export const TAX_RATES_BP: Readonly<Record<string, number>> = {
  'US-CA': 725,
  'US-NY': 400,
  'US-TX': 625,
  'US-WA': 650,
  US: 0,
  CA: 500,
  DE: 1900,
  FR: 2000,
  NL: 2100,
  GB: 2000,
};
/** A country in neither list is taxed at this rate. */
export const DEFAULT_TAX_RATE_BP = 0;

/** Shipping by subtotal band (minor units): the first band whose `below` exceeds the subtotal. */
export const SHIPPING_BANDS: readonly { below: number; shipping: number }[] = [
  { below: 10_000, shipping: 1_500 },
  { below: 50_000, shipping: 1_000 },
  { below: 100_000, shipping: 500 },
  { below: Number.POSITIVE_INFINITY, shipping: 0 },
];

export function taxRateBp(country: string, region: string): number {
  const c = country.toUpperCase();
  return TAX_RATES_BP[`${c}-${region.toUpperCase()}`] ?? TAX_RATES_BP[c] ?? DEFAULT_TAX_RATE_BP;
}

/** `amount * bp / 10000`, rounded half-up, in exact integer arithmetic. */
export function applyRateHalfUp(amount: bigint, bp: number): bigint {
  const scaled = amount * BigInt(bp);
  return (scaled * 2n + 10_000n) / 20_000n;
}

export function shippingFor(subtotal: bigint): bigint {
  const band = SHIPPING_BANDS.find((b) => Number(subtotal) < b.below)!;
  return BigInt(band.shipping);
}

export interface Totals {
  subtotal: number;
  tax: number;
  shipping: number;
  total: number;
}

/** The totals of an order of `lineTotals` shipped to `address`; 422 when beyond exact integers. */
export function orderTotals(lineTotals: number[], address: { country: string; region: string }): Totals {
  const subtotal = lineTotals.reduce((sum, l) => sum + BigInt(l), 0n);
  const tax = applyRateHalfUp(subtotal, taxRateBp(address.country, address.region));
  const shipping = shippingFor(subtotal);
  const total = subtotal + tax + shipping;
  if (total > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new InputError('The order total is too large; split the order', 'items');
  }
  return { subtotal: Number(subtotal), tax: Number(tax), shipping: Number(shipping), total: Number(total) };
}
