// The catalog's internal pricing call (never routed by the gateway), made by the orders service to
// price every line of an order in one round trip: POST /internal/v1/catalog/prices.
// Each line gets the unit price of the best tier for the account (`min_qty <= quantity`, from the
// nearest price list in the account's lineage, else the base tiers) and `line_total =
// unit_price.amount * quantity`, or the reason it cannot be ordered. An unknown account is 404.
import { Money } from '../schemas/common-schemas';
import { requestObject } from '../schemas/request-object';
import { z } from '../zod';

/**
 * Why a line cannot be priced: `invalid_item` (unknown or not visible to the account),
 * `item_unavailable` (discontinued or out of stock), `amount_too_large` (`unit_price.amount *
 * quantity` beyond 2^53 - 1, the largest amount the API represents exactly).
 */
export const PRICE_LINE_ERRORS = ['invalid_item', 'item_unavailable', 'amount_too_large'] as const;
export type PriceLineError = (typeof PRICE_LINE_ERRORS)[number];

export const PriceLinesRequest = requestObject({
  cust_id: z.string().min(1),
  lines: z
    .array(requestObject({ item_code: z.string().min(1), quantity: z.int().min(1) }))
    .min(1)
    .max(100),
});
export type PriceLinesRequest = z.infer<typeof PriceLinesRequest>;

export const PricedLine = z.looseObject({
  item_code: z.string(),
  quantity: z.int(),
  /** The catalog item's id. */
  item_id: z.string(),
  /** What the order line shows as its `description`: the item's name. */
  description: z.string(),
  unit_price: Money,
  line_total: Money,
  lead_time_days: z.int().min(0),
});
export type PricedLine = z.infer<typeof PricedLine>;

export const UnpricedLine = z.looseObject({
  item_code: z.string(),
  quantity: z.int(),
  /** One of PRICE_LINE_ERRORS. */
  error: z.looseObject({ code: z.enum(PRICE_LINE_ERRORS), message: z.string() }),
});
export type UnpricedLine = z.infer<typeof UnpricedLine>;

export const PriceLinesResponse = z.looseObject({
  object: z.literal('price_quote'),
  cust_id: z.string(),
  currency: z.string(),
  /** One per requested line, in the request's order. */
  lines: z.array(z.union([PricedLine, UnpricedLine])),
});
export type PriceLinesResponse = z.infer<typeof PriceLinesResponse>;

export const isUnpricedLine = (line: PricedLine | UnpricedLine): line is UnpricedLine => 'error' in line;

export const CATALOG_PRICES_PATH = '/internal/v1/catalog/prices';
