// A small client of the catalog's internal admin API, for the operator CLI, the demo seeder and
// tests. It signs an operator identity with the internal secret (InternalApiClient).
import { InternalApiClient } from '@ordering/http';
import { ADMIN_BASE } from '../http/admin-routes';

export class CatalogAdminError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    const error = (body as { error?: { code?: string; message?: string; param?: string } })?.error;
    super(
      error
        ? `${status} ${error.code ?? ''}${error.param ? ` (${error.param})` : ''}: ${error.message ?? ''}`
        : `HTTP ${status}`,
    );
    this.name = 'CatalogAdminError';
  }
}

export interface CatalogAdminClientOptions {
  baseUrl: string;
  internalIdentitySecret: string;
  /** Who acts; default `ops`. */
  operator?: string;
  timeoutMs?: number;
}

const enc = encodeURIComponent;

export class CatalogAdminClient {
  private readonly api: InternalApiClient;

  constructor(options: CatalogAdminClientOptions) {
    this.api = new InternalApiClient({
      baseUrl: options.baseUrl,
      secret: options.internalIdentitySecret,
      caller: options.operator ?? 'ops',
      callee: 'catalog',
      timeoutMs: options.timeoutMs ?? 120_000,
    });
  }

  async request<T = Record<string, unknown>>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.api.request<T>(method, `${ADMIN_BASE}${path}`, body);
    if (res.status >= 400) throw new CatalogAdminError(res.status, res.body);
    return res.body;
  }

  createCategory(category: { id: string; name: string; parent_id?: string | null }) {
    return this.request('POST', '/categories', category);
  }
  updateCategory(id: string, changes: Record<string, unknown>) {
    return this.request('PATCH', `/categories/${enc(id)}`, changes);
  }
  categories() {
    return this.request<{ data: { id: string; name: string; parent_id: string | null }[] }>(
      'GET',
      '/categories',
    );
  }
  createItem(item: Record<string, unknown>) {
    return this.request<{ id: string; item_code: string }>('POST', '/items', item);
  }
  getItem(ref: string) {
    return this.request<{ id: string; item_code: string }>('GET', `/items/${enc(ref)}`);
  }
  listItems(query = '') {
    return this.request<{
      data: { id: string; item_code: string }[];
      has_more: boolean;
      next_cursor: string | null;
    }>('GET', `/items${query}`);
  }
  updateItem(ref: string, changes: Record<string, unknown>) {
    return this.request('PATCH', `/items/${enc(ref)}`, changes);
  }
  setVisibility(ref: string, custIds: string[]) {
    return this.request('PUT', `/items/${enc(ref)}/visibility`, { cust_ids: custIds });
  }
  setAvailability(ref: string, custId: string, available: boolean | null) {
    return available === null
      ? this.request('DELETE', `/items/${enc(ref)}/availability/${enc(custId)}`)
      : this.request('PUT', `/items/${enc(ref)}/availability/${enc(custId)}`, { available });
  }
  createPriceList(list: { id: string; name: string; currency: string }) {
    return this.request('POST', '/price_lists', list);
  }
  getPriceList(id: string) {
    return this.request('GET', `/price_lists/${enc(id)}`);
  }
  priceLists() {
    return this.request('GET', '/price_lists');
  }
  setPriceListEntry(listId: string, ref: string, pricing: { min_qty: number; amount: number }[] | null) {
    return pricing === null
      ? this.request('DELETE', `/price_lists/${enc(listId)}/items/${enc(ref)}`)
      : this.request('PUT', `/price_lists/${enc(listId)}/items/${enc(ref)}`, { pricing });
  }
  assign(custId: string, listId: string | null) {
    return listId === null
      ? this.request('DELETE', `/assignments/${enc(custId)}`)
      : this.request('PUT', `/assignments/${enc(custId)}`, { price_list_id: listId });
  }
  assignments() {
    return this.request('GET', '/assignments');
  }
  importItems(format: 'json' | 'csv', content: string) {
    return this.request<{ imported: number; created: number; updated: number; changes: number }>(
      'POST',
      '/items/import',
      { format, content },
    );
  }
}
