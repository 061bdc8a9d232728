import { Money } from './common-schemas';
import { z } from '../zod';

export const PriceTier = z
  .looseObject({
    min_qty: z.int().min(1),
    unit_price: Money,
  })
  .openapi('PriceTier', { description: 'Unit price that applies from `min_qty` units on' });

export const CatalogItem = z
  .looseObject({
    id: z.string(),
    object: z.literal('catalog_item'),
    item_code: z.string().openapi({ description: 'SKU-like code, also used when creating orders' }),
    name: z.string(),
    description: z.string(),
    category: z.looseObject({ id: z.string(), name: z.string() }),
    flags: z.array(z.string()),
    images: z.array(z.string()).openapi({ description: 'Image URLs' }),
    pricing: z.array(PriceTier),
    available: z.boolean(),
    lead_time_days: z.int().min(0),
  })
  .openapi('CatalogItem', { description: 'A catalog item as seen by one customer account' });
export type CatalogItem = z.infer<typeof CatalogItem>;
