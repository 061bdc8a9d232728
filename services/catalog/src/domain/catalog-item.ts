// A catalog item as one account sees it: the tiers that apply to it (the nearest price list of its
// lineage that prices the item, else the item's base tiers), its availability, its category.
import type { CatalogItem, Money } from '@ordering/contracts';

/** A price tier as stored: the amount in the minor unit of the tiers' currency. */
export interface StoredTier {
  min_qty: number;
  amount: number;
}

/** An item row as the per-account read returns it (terms already resolved for that account). */
export interface AccountItemRow {
  id: string;
  item_code: string;
  name: string;
  description: string;
  category_id: string;
  category_name: string;
  flags: string[];
  images: string[];
  lead_time_days: number;
  tiers: StoredTier[];
  available: boolean;
}

/** What the reads need to know of an account: its lineage (itself first) and its currency. */
export interface AccountTerms {
  custId: string;
  lineage: string[];
  currency: string;
}

export function itemResource(row: AccountItemRow, currency: string): CatalogItem {
  return {
    id: row.id,
    object: 'catalog_item',
    item_code: row.item_code,
    name: row.name,
    description: row.description,
    category: { id: row.category_id, name: row.category_name },
    flags: row.flags,
    images: row.images,
    pricing: row.tiers.map((t) => ({ min_qty: t.min_qty, unit_price: { amount: t.amount, currency } })),
    available: row.available,
    lead_time_days: row.lead_time_days,
  };
}

/**
 * The unit price for a quantity: the best (lowest) price among the tiers whose `min_qty <= quantity`
 * (decisions.md "Money"). With tiers that fall as `min_qty` rises, as they usually do, that is the
 * tier with the highest `min_qty <= quantity`; with tiers that do not, buying more never costs more
 * a unit than the quantity's own lower tiers offer.
 */
export function unitPriceFor(tiers: StoredTier[], quantity: number, currency: string): Money | undefined {
  let best: StoredTier | undefined;
  for (const tier of tiers) if (tier.min_qty <= quantity && (!best || tier.amount < best.amount)) best = tier;
  return best ? { amount: best.amount, currency } : undefined;
}
