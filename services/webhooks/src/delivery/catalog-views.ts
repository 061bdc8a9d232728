// The item as one account sees it, from the catalog's internal API (POST
// /internal/v1/catalog/items/views), for `catalog.item.updated` deliveries. Asked at a delivery's
// first attempt, so the event carries the account's current view (its prices, its availability).
// Requests for the same item made in the same moment (the worker sends many deliveries at once) go
// as one call.
import { CATALOG_ITEM_VIEWS_PATH, type CatalogItem, CatalogItemViewsResponse } from '@ordering/contracts';
import { InternalApiClient } from '@ordering/http';

export interface CatalogViewSource {
  /** The item as `custId` sees it; null when that account cannot see it (or the item is gone). */
  viewFor(itemId: string, custId: string): Promise<CatalogItem | null>;
}

interface Pending {
  custIds: Set<string>;
  waiters: { custId: string; resolve: (item: CatalogItem | null) => void; reject: (err: unknown) => void }[];
}

export class CatalogViews implements CatalogViewSource {
  private readonly api: InternalApiClient;
  private readonly pending = new Map<string, Pending>();

  constructor(options: { baseUrl: string; secret: string; timeoutMs?: number }) {
    this.api = new InternalApiClient({
      baseUrl: options.baseUrl,
      secret: options.secret,
      caller: 'webhooks',
      callee: 'catalog',
      timeoutMs: options.timeoutMs ?? 5000,
    });
  }

  viewFor(itemId: string, custId: string): Promise<CatalogItem | null> {
    return new Promise((resolve, reject) => {
      let batch = this.pending.get(itemId);
      if (!batch) {
        batch = { custIds: new Set(), waiters: [] };
        this.pending.set(itemId, batch);
        setImmediate(() => void this.fetch(itemId));
      }
      batch.custIds.add(custId);
      batch.waiters.push({ custId, resolve, reject });
    });
  }

  private async fetch(itemId: string): Promise<void> {
    const batch = this.pending.get(itemId)!;
    this.pending.delete(itemId);
    try {
      const custIds = [...batch.custIds];
      const views = new Map<string, CatalogItem | null>();
      for (let i = 0; i < custIds.length; i += 1000) {
        const res = await this.api.request('POST', CATALOG_ITEM_VIEWS_PATH, {
          item_id: itemId,
          cust_ids: custIds.slice(i, i + 1000),
        });
        if (res.status === 404) break; // the item is gone: nobody sees it
        if (res.status !== 200) throw this.api.unexpected(res, CATALOG_ITEM_VIEWS_PATH);
        for (const view of CatalogItemViewsResponse.parse(res.body).views) {
          views.set(view.cust_id, view.visible ? view.item : null);
        }
      }
      for (const w of batch.waiters) w.resolve(views.get(w.custId) ?? null);
    } catch (err) {
      for (const w of batch.waiters) w.reject(err);
    }
  }
}
