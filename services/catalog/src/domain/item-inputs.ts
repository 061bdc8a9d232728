// What operators send to create and change catalog data (admin endpoints, CLI, import files).
// Strict: an unknown field is 422 unknown_field naming it.
import { CurrencyCode, requestObject } from '@ordering/contracts';
import { z } from 'zod';

/** Operator-chosen ids of categories and price lists (`office`, `ACME-2026`). */
export const Slug = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/, 'must be 1-64 letters, digits, ".", "_" or "-"');

export const ItemCode = z
  .string()
  .regex(/^[A-Za-z0-9][A-Za-z0-9._/-]{0,63}$/, 'must be 1-64 letters, digits, ".", "_", "/" or "-"');

export const LIFECYCLES = ['active', 'discontinued'] as const;
export const STOCK_STATES = ['in_stock', 'low_stock', 'out_of_stock'] as const;

const Tier = requestObject({
  min_qty: z.int().min(1).max(1_000_000),
  amount: z.int().min(0).max(1_000_000_000_000),
});

/** Said of a `pricing` that is not a list of tiers at all (a CSV cell that is not `1:1250;10:1100`). */
const TIERS_FORMAT =
  "must be price tiers, each a min_qty and an integer amount in the currency's minor unit " +
  '(cents for USD): in a CSV cell 1:1250;10:1100, in JSON [{"min_qty": 1, "amount": 1250}]';

/** Price tiers: the first from 1 unit (every quantity has a price), each `min_qty` once. */
export const Tiers = z
  .array(Tier, { error: TIERS_FORMAT })
  .min(1, 'must hold at least one tier (min_qty 1)')
  .max(20, 'may hold at most 20 tiers')
  .refine((tiers) => tiers.some((t) => t.min_qty === 1), 'must include a tier with min_qty 1')
  .refine(
    (tiers) => new Set(tiers.map((t) => t.min_qty)).size === tiers.length,
    'each min_qty may appear once',
  )
  .transform((tiers) => [...tiers].sort((a, b) => a.min_qty - b.min_qty));
export type Tiers = z.infer<typeof Tiers>;

const text = (max: number) => z.string().max(max);
const itemFields = {
  name: text(200).min(1),
  description: text(5000),
  category_id: Slug,
  flags: z.array(z.string().min(1).max(50)).max(20),
  images: z.array(z.url({ protocol: /^https?$/ }).max(2000)).max(20),
  currency: CurrencyCode,
  pricing: Tiers,
  lead_time_days: z.int({ error: 'must be a whole number of days, 0 to 3650' }).min(0).max(3650),
  lifecycle: z.enum(LIFECYCLES),
  stock_state: z.enum(STOCK_STATES),
};

export const CreateItemInput = requestObject({
  item_code: ItemCode,
  name: itemFields.name,
  description: itemFields.description.default(''),
  category_id: itemFields.category_id,
  flags: itemFields.flags.default([]),
  images: itemFields.images.default([]),
  currency: itemFields.currency,
  pricing: itemFields.pricing,
  lead_time_days: itemFields.lead_time_days.default(0),
  lifecycle: itemFields.lifecycle.default('active'),
  stock_state: itemFields.stock_state.default('in_stock'),
});
export type CreateItemInput = z.infer<typeof CreateItemInput>;

export const UpdateItemInput = requestObject({
  name: itemFields.name.optional(),
  description: itemFields.description.optional(),
  category_id: itemFields.category_id.optional(),
  flags: itemFields.flags.optional(),
  images: itemFields.images.optional(),
  currency: itemFields.currency.optional(),
  pricing: itemFields.pricing.optional(),
  lead_time_days: itemFields.lead_time_days.optional(),
  lifecycle: itemFields.lifecycle.optional(),
  stock_state: itemFields.stock_state.optional(),
});
export type UpdateItemInput = z.infer<typeof UpdateItemInput>;

export const CategoryInput = requestObject({
  id: Slug,
  name: z.string().min(1).max(200),
  parent_id: Slug.nullable().optional(),
});
export type CategoryInput = z.infer<typeof CategoryInput>;

export const UpdateCategoryInput = requestObject({
  name: z.string().min(1).max(200).optional(),
  parent_id: Slug.nullable().optional(),
});
export type UpdateCategoryInput = z.infer<typeof UpdateCategoryInput>;

export const PriceListInput = requestObject({
  id: Slug,
  name: z.string().min(1).max(200),
  currency: CurrencyCode,
});
export type PriceListInput = z.infer<typeof PriceListInput>;

export const PriceListEntryInput = requestObject({ pricing: Tiers });
export const AssignmentInput = requestObject({ price_list_id: Slug });
/** An empty list lifts the restriction: every account sees the item. */
export const VisibilityInput = requestObject({ cust_ids: z.array(z.string().min(1).max(64)).max(10_000) });
export const AvailabilityInput = requestObject({ available: z.boolean() });
