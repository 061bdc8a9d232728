// Reading the catalog as one account sees it: the public list/search and retrieve (within the
// token's reach), the orders service's one-round-trip pricing, and the webhooks service's per-account
// views of one changed item. The account's lineage comes from the customers service (cached).
import {
  type CatalogItem,
  type CatalogItemView,
  type CatalogItemViewsRequest,
  type CatalogItemViewsResponse,
  type PriceLinesRequest,
  type PriceLinesResponse,
  type PricedLine,
  type UnpricedLine,
} from '@ordering/contracts';
import { InputError, NotFoundError } from '@ordering/errors';
import type { CatalogViewRepository, ListCursor, RankedRow } from '../data-access/catalog-view-repository';
import { type AccountTerms, itemResource, unitPriceFor } from './catalog-item';

/** The account directory the catalog needs (CustomersDirectory of @ordering/customers-client). */
export interface AccountDirectory {
  lineage(custId: string): Promise<{ cust_id: string; currency: string; lineage: string[] } | undefined>;
}

export interface ListRequest {
  custId: string;
  categoryId?: string;
  q?: string;
  available?: boolean;
  limit: number;
  after?: ListCursor;
}

export interface ItemPage {
  items: CatalogItem[];
  hasMore: boolean;
  /** The position of the page's last item (the next page starts after it). */
  last?: ListCursor;
}

/** Longest search text accepted (a query, not a document). */
export const MAX_QUERY_LENGTH = 200;

export class CatalogQueries {
  constructor(
    private readonly views: CatalogViewRepository,
    private readonly directory: AccountDirectory,
    /** The pricing read's own (sessions that keep one generic plan for it); default `views`. */
    private readonly pricingViews: CatalogViewRepository = views,
  ) {}

  /** The account's terms when `tokenCustId` reaches it (itself or an ancestor); 404 otherwise. */
  async accountWithinReach(tokenCustId: string, custId: string): Promise<AccountTerms> {
    const found = await this.directory.lineage(custId);
    if (!found || !found.lineage.includes(tokenCustId)) {
      throw new NotFoundError(`No such customer: ${custId}`, 'cust_id');
    }
    return { custId: found.cust_id, lineage: found.lineage, currency: found.currency };
  }

  private async account(custId: string): Promise<AccountTerms | undefined> {
    const found = await this.directory.lineage(custId);
    return found && { custId: found.cust_id, lineage: found.lineage, currency: found.currency };
  }

  async list(tokenCustId: string, request: ListRequest): Promise<ItemPage> {
    const account = await this.accountWithinReach(tokenCustId, request.custId);
    let categoryIds: string[] | undefined;
    if (request.categoryId !== undefined) {
      categoryIds = await this.views.categorySubtree(request.categoryId);
      if (!categoryIds) throw new InputError(`No such category: ${request.categoryId}`, 'category_id');
    }
    const q = request.q?.trim();
    if (request.q !== undefined && (q === '' || q!.length > MAX_QUERY_LENGTH)) {
      throw new InputError(`q must be 1 to ${MAX_QUERY_LENGTH} characters of text`, 'q');
    }
    // A cursor of the other kind (a browse cursor on a search) was not made for this list.
    if (request.after && request.after.kind !== (q === undefined ? 'browse' : 'search')) {
      throw new InputError('starting_after is not a cursor of this list (use next_cursor)', 'starting_after');
    }
    const rows = await this.views.list(account, {
      ...(categoryIds ? { categoryIds } : {}),
      ...(request.available === undefined ? {} : { available: request.available }),
      ...(q === undefined ? {} : { q }),
      ...(request.after ? { after: request.after } : {}),
      limit: request.limit + 1,
    });
    const hasMore = rows.length > request.limit;
    const page = hasMore ? rows.slice(0, request.limit) : rows;
    const last = page[page.length - 1];
    return {
      items: page.map((r) => itemResource(r, account.currency)),
      hasMore,
      ...(last ? { last: cursorOf(last, q !== undefined) } : {}),
    };
  }

  /** One item as the account sees it; 404 when unknown, invisible to it, or the account is out of reach. */
  async get(tokenCustId: string, custId: string, id: string): Promise<CatalogItem> {
    const account = await this.accountWithinReach(tokenCustId, custId);
    const [row] = await this.views.find(account, { ids: [id] });
    if (!row) throw new NotFoundError(`No such catalog item: ${id}`, 'id');
    return itemResource(row, account.currency);
  }

  /** Prices every line for the account in one read (the orders service's call); 404 for an unknown account. */
  async price(request: PriceLinesRequest): Promise<PriceLinesResponse> {
    const account = await this.account(request.cust_id);
    if (!account) throw new NotFoundError(`No such customer: ${request.cust_id}`, 'cust_id');
    const codes = [...new Set(request.lines.map((l) => l.item_code))];
    const rows = new Map((await this.pricingViews.find(account, { codes })).map((r) => [r.item_code, r]));
    const lines = request.lines.map((line): PricedLine | UnpricedLine => {
      const row = rows.get(line.item_code);
      const unit = row && unitPriceFor(row.tiers, line.quantity, account.currency);
      if (!row || !unit) {
        return unpriced(
          line,
          'invalid_item',
          `No catalog item ${line.item_code} for account ${account.custId}`,
        );
      }
      if (!row.available) {
        return unpriced(line, 'item_unavailable', `Catalog item ${line.item_code} is not available`);
      }
      if (!Number.isSafeInteger(unit.amount * line.quantity)) {
        return unpriced(
          line,
          'amount_too_large',
          `The line total of ${line.quantity} × ${line.item_code} is too large an amount; lower the quantity or split the order`,
        );
      }
      return {
        item_code: line.item_code,
        quantity: line.quantity,
        item_id: row.id,
        description: row.name,
        unit_price: unit,
        line_total: { amount: unit.amount * line.quantity, currency: account.currency },
        lead_time_days: row.lead_time_days,
      };
    });
    return { object: 'price_quote', cust_id: account.custId, currency: account.currency, lines };
  }

  /** The item as each account sees it (the webhooks service's call); 404 for an unknown item. */
  async viewsOf(request: CatalogItemViewsRequest): Promise<CatalogItemViewsResponse> {
    const key = await this.views.itemKey(
      request.item_id !== undefined ? { id: request.item_id } : { code: request.item_code ?? '' },
    );
    if (!key)
      throw new NotFoundError(
        'No such catalog item',
        request.item_id !== undefined ? 'item_id' : 'item_code',
      );
    const views: CatalogItemView[] = [];
    for (const custId of request.cust_ids) {
      const account = await this.account(custId);
      const [row] = account ? await this.views.find(account, { ids: [key.id] }) : [];
      views.push(
        row && account
          ? { cust_id: custId, visible: true, item: itemResource(row, account.currency) }
          : { cust_id: custId, visible: false, item: null },
      );
    }
    return { object: 'catalog_item_views', item_id: key.id, item_code: key.item_code, views };
  }
}

function unpriced(
  line: { item_code: string; quantity: number },
  code: UnpricedLine['error']['code'],
  message: string,
): UnpricedLine {
  return { item_code: line.item_code, quantity: line.quantity, error: { code, message } };
}

function cursorOf(row: RankedRow, searching: boolean): ListCursor {
  return searching
    ? { kind: 'search', tier: row.tier ?? 0, itemCode: row.item_code }
    : { kind: 'browse', itemCode: row.item_code };
}
