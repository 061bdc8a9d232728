// The one change message per changed item (libs/contracts messages/catalog-item-change.ts): what
// changed and whose view may have changed, never a per-account copy.
import {
  CATALOG_ITEM_CHANGE_TOPIC,
  CATALOG_ITEM_CHANGE_TYPE,
  type CatalogChangeAspect,
  CatalogItemChange,
  newId,
} from '@ordering/contracts';
import type { OutboxMessage } from '@ordering/messaging';

/** The fields of an item whose change a `catalog.item.updated` reports, by aspect. */
export interface ItemState {
  name: string;
  description: string;
  category_id: string;
  flags: string[];
  images: string[];
  currency: string;
  base_tiers: unknown;
  lead_time_days: number;
  lifecycle: string;
  stock_state: string;
}

const ASPECT_OF: Record<keyof ItemState, CatalogChangeAspect> = {
  name: 'description',
  description: 'description',
  category_id: 'description',
  flags: 'description',
  images: 'description',
  currency: 'pricing',
  base_tiers: 'pricing',
  lead_time_days: 'availability',
  lifecycle: 'availability',
  stock_state: 'availability',
};

/** A field's value in one comparable form (tiers from jsonb come back with their keys reordered). */
function comparable(field: keyof ItemState, value: unknown): string {
  if (field === 'base_tiers') {
    return JSON.stringify((value as { min_qty: number; amount: number }[]).map((t) => [t.min_qty, t.amount]));
  }
  return JSON.stringify(typeof value === 'string' ? value.trim() : value);
}

/** The aspects in which `after` differs from `before` (none: no event). */
export function changedAspects(before: ItemState, after: ItemState): CatalogChangeAspect[] {
  const aspects = new Set<CatalogChangeAspect>();
  for (const field of Object.keys(ASPECT_OF) as (keyof ItemState)[]) {
    if (comparable(field, before[field]) !== comparable(field, after[field])) aspects.add(ASPECT_OF[field]);
  }
  return (['pricing', 'availability', 'description'] as const).filter((a) => aspects.has(a));
}

export function itemChangeMessage(
  item: { id: string; item_code: string },
  changed: CatalogChangeAspect[],
  custIds: string[] | null,
  now: Date,
): OutboxMessage {
  const change = CatalogItemChange.parse({
    id: newId('chg', now.getTime()),
    item_id: item.id,
    item_code: item.item_code,
    changed,
    cust_ids: custIds,
    occurred_at: now.toISOString(),
  });
  return {
    topic: CATALOG_ITEM_CHANGE_TOPIC,
    key: item.id,
    id: change.id,
    type: CATALOG_ITEM_CHANGE_TYPE,
    value: change,
  };
}
