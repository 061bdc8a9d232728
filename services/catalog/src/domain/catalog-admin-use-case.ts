// Operators' changes to the catalog. Each runs in one transaction and writes, in it, one change
// message per item whose pricing, availability or description changed (see item-changes.ts).
import { newId } from '@ordering/contracts';
import { ConflictError, InputError, NotFoundError } from '@ordering/errors';
import { enqueueMessages, type OutboxMessage } from '@ordering/messaging';
import type { Clock } from '@ordering/service';
import type {
  CatalogAdminRepository,
  Db,
  ItemRow,
  ItemValues,
} from '../data-access/catalog-admin-repository';
import type { AccountDirectory } from './catalog-queries-use-case';
import { changedAspects, itemChangeMessage } from './item-changes';
import type {
  CategoryInput,
  CreateItemInput,
  PriceListInput,
  Tiers,
  UpdateCategoryInput,
  UpdateItemInput,
} from './item-inputs';

const UNIQUE_VIOLATION = '23505';
/** Accounts looked up at once when checking a visibility list. */
const ACCOUNT_CHECKS_AT_ONCE = 16;
const isUnique = (err: unknown) => (err as { code?: string }).code === UNIQUE_VIOLATION;

export function adminItemResource(
  row: ItemRow,
  extra: { visible_to: string[]; availability_rules: { cust_id: string; available: boolean }[] },
) {
  return {
    object: 'catalog_admin_item' as const,
    id: row.id,
    item_code: row.item_code,
    name: row.name,
    description: row.description,
    category_id: row.category_id,
    flags: row.flags,
    images: row.images,
    currency: row.currency.trim(),
    pricing: row.base_tiers,
    lead_time_days: row.lead_time_days,
    lifecycle: row.lifecycle,
    stock_state: row.stock_state,
    restricted: row.restricted,
    visible_to: extra.visible_to,
    availability_rules: extra.availability_rules,
    created_at: row.created_at.toISOString(),
    updated_at: row.updated_at.toISOString(),
  };
}
export type AdminItem = ReturnType<typeof adminItemResource>;

export function itemValues(input: CreateItemInput): ItemValues {
  return {
    item_code: input.item_code,
    name: input.name,
    description: input.description,
    category_id: input.category_id,
    flags: input.flags,
    images: input.images,
    currency: input.currency,
    base_tiers: input.pricing,
    lead_time_days: input.lead_time_days,
    lifecycle: input.lifecycle,
    stock_state: input.stock_state,
  };
}

export class CatalogAdministration {
  constructor(
    private readonly repo: CatalogAdminRepository,
    private readonly directory: AccountDirectory,
    private readonly clock: Clock,
  ) {}

  // Categories -------------------------------------------------------------------------------

  listCategories() {
    return this.repo.categories();
  }

  async createCategory(input: CategoryInput) {
    return this.repo.transaction(async (trx) => {
      if (input.parent_id) await this.mustHaveCategory(trx, input.parent_id, 'parent_id');
      const row = { id: input.id, name: input.name, parent_id: input.parent_id ?? null };
      try {
        await this.repo.insertCategory(trx, row);
      } catch (err) {
        if (isUnique(err))
          throw new ConflictError('resource_exists', `A category ${input.id} already exists`, 'id');
        throw err;
      }
      return row;
    });
  }

  async updateCategory(id: string, input: UpdateCategoryInput) {
    return this.repo.transaction(async (trx) => {
      await this.mustHaveCategory(trx, id, 'id', NotFoundError);
      if (input.parent_id) {
        await this.mustHaveCategory(trx, input.parent_id, 'parent_id');
        if (await this.repo.isAncestorOrSelf(trx, id, input.parent_id)) {
          throw new InputError('a category cannot move below itself', 'parent_id');
        }
      }
      await this.repo.updateCategory(trx, id, {
        ...(input.name === undefined ? {} : { name: input.name }),
        ...(input.parent_id === undefined ? {} : { parent_id: input.parent_id }),
      });
      return (await this.repo.category(trx, id))!;
    });
  }

  private async mustHaveCategory(
    db: Db,
    id: string,
    param: string,
    Err: typeof InputError | typeof NotFoundError = InputError,
  ): Promise<void> {
    if (!(await this.repo.category(db, id))) throw new Err(`No such category: ${id}`, param);
  }

  // Items ------------------------------------------------------------------------------------

  async getItem(ref: string, db: Db = this.repo.knex): Promise<AdminItem> {
    const row = await this.repo.item(db, ref);
    if (!row) throw new NotFoundError(`No such catalog item: ${ref}`, 'item');
    return adminItemResource(row, {
      visible_to: await this.repo.visibleTo(db, row.id),
      availability_rules: await this.repo.availabilityRules(db, row.id),
    });
  }

  async listItems(query: { afterCode?: string; limit: number }) {
    const rows = await this.repo.listItems(this.repo.knex, query);
    return rows.map((r) => adminItemResource(r, { visible_to: [], availability_rules: [] }));
  }

  async createItem(input: CreateItemInput): Promise<AdminItem> {
    return this.repo.transaction(async (trx) => {
      await this.mustHaveCategory(trx, input.category_id, 'category_id');
      const id = newId('itm', this.clock.now().getTime());
      try {
        await this.repo.insertItem(trx, id, itemValues(input), this.clock.now());
      } catch (err) {
        if (isUnique(err)) {
          throw new ConflictError(
            'resource_exists',
            `An item ${input.item_code} already exists`,
            'item_code',
          );
        }
        throw err;
      }
      return this.getItem(id, trx);
    });
  }

  async updateItem(ref: string, input: UpdateItemInput): Promise<AdminItem> {
    return this.repo.transaction(async (trx) => {
      const before = await this.mustHaveItem(trx, ref);
      if (input.category_id !== undefined) await this.mustHaveCategory(trx, input.category_id, 'category_id');
      const { pricing, ...rest } = input;
      const changes: Partial<ItemValues> = { ...rest, ...(pricing ? { base_tiers: pricing } : {}) };
      const after = { ...before, ...changes };
      const aspects = changedAspects(before, after);
      await this.repo.updateItem(trx, before.id, changes, this.clock.now());
      if (aspects.length > 0)
        await this.publish(trx, [itemChangeMessage(before, aspects, null, this.clock.now())]);
      return this.getItem(before.id, trx);
    });
  }

  private async mustHaveItem(db: Db, ref: string): Promise<ItemRow> {
    const row = await this.repo.item(db, ref, true);
    if (!row) throw new NotFoundError(`No such catalog item: ${ref}`, 'item');
    return row;
  }

  /** Restricts the item to these accounts and their descendants; an empty list lifts the restriction. */
  async setVisibility(ref: string, custIds: string[]): Promise<AdminItem> {
    const unique = [...new Set(custIds)];
    await this.mustHaveAccounts(unique, 'cust_ids', custIds);
    return this.repo.transaction(async (trx) => {
      const item = await this.mustHaveItem(trx, ref);
      // The same accounts again change nothing and announce nothing (no catalog.item.updated).
      const current = new Set(await this.repo.visibleTo(trx, item.id));
      if (current.size !== unique.length || unique.some((c) => !current.has(c))) {
        await this.repo.setVisibleTo(trx, item.id, unique);
        await this.repo.updateItem(trx, item.id, { restricted: unique.length > 0 }, this.clock.now());
        await this.publish(trx, [itemChangeMessage(item, ['availability'], null, this.clock.now())]);
      }
      return this.getItem(item.id, trx);
    });
  }

  /**
   * Every account exists (a misspelt one would restrict the item to nobody, hiding it from everyone
   * without a word); 422 invalid_value naming the first unknown one, `cust_ids[2]`. Asked a few at a
   * time (the directory caches what it reads).
   */
  private async mustHaveAccounts(unique: string[], param: string, given: string[]): Promise<void> {
    for (let i = 0; i < unique.length; i += ACCOUNT_CHECKS_AT_ONCE) {
      const batch = unique.slice(i, i + ACCOUNT_CHECKS_AT_ONCE);
      const found = await Promise.all(batch.map((custId) => this.directory.lineage(custId)));
      const missing = batch.find((_, j) => !found[j]);
      if (missing !== undefined) {
        throw new InputError(`No such customer: ${missing}`, `${param}[${given.indexOf(missing)}]`);
      }
    }
  }

  /** An account's own availability of the item (inherited by its descendants); null removes it. */
  async setAvailability(ref: string, custId: string, available: boolean | null): Promise<AdminItem> {
    return this.repo.transaction(async (trx) => {
      const item = await this.mustHaveItem(trx, ref);
      if (available !== null && !(await this.directory.lineage(custId))) {
        throw new NotFoundError(`No such customer: ${custId}`, 'cust_id');
      }
      if (await this.repo.setAvailability(trx, item.id, custId, available)) {
        await this.publish(trx, [itemChangeMessage(item, ['availability'], [custId], this.clock.now())]);
      }
      return this.getItem(item.id, trx);
    });
  }

  // Price lists ------------------------------------------------------------------------------

  async createPriceList(input: PriceListInput) {
    try {
      await this.repo.insertPriceList(this.repo.knex, input);
    } catch (err) {
      if (isUnique(err))
        throw new ConflictError('resource_exists', `A price list ${input.id} already exists`, 'id');
      throw err;
    }
    return this.getPriceList(input.id);
  }

  async getPriceList(id: string) {
    const list = await this.repo.priceList(this.repo.knex, id);
    if (!list) throw new NotFoundError(`No such price list: ${id}`, 'price_list_id');
    return {
      object: 'price_list' as const,
      ...list,
      currency: list.currency.trim(),
      assigned_to: await this.repo.assignedAccounts(this.repo.knex, id),
      items: (await this.repo.priceListEntries(this.repo.knex, id)).map((e) => ({
        item_id: e.item_id,
        item_code: e.item_code,
        pricing: e.tiers,
      })),
    };
  }

  async listPriceLists() {
    return this.repo.priceLists();
  }

  /** The list's own tiers for an item (null removes them: the base tiers apply again). */
  async setPriceListEntry(listId: string, ref: string, tiers: Tiers | null) {
    await this.repo.transaction(async (trx) => {
      if (!(await this.repo.priceList(trx, listId))) {
        throw new NotFoundError(`No such price list: ${listId}`, 'price_list_id');
      }
      const item = await this.mustHaveItem(trx, ref);
      const changed = await this.repo.setPriceListEntry(trx, listId, item.id, tiers);
      const accounts = await this.repo.assignedAccounts(trx, listId);
      if (changed && accounts.length > 0) {
        await this.publish(trx, [itemChangeMessage(item, ['pricing'], accounts, this.clock.now())]);
      }
    });
    return this.getPriceList(listId);
  }

  async listAssignments() {
    return this.repo.assignments();
  }

  /** Assigns a price list to an account (and so its descendants); null removes the assignment. */
  async assign(custId: string, listId: string | null) {
    return this.repo.transaction(async (trx) => {
      // Another change of this account's list waits: each announces the items of the list it replaces.
      await this.repo.lockAssignment(trx, custId);
      const previous = await this.repo.assignment(trx, custId);
      if (listId !== null) {
        const list = await this.repo.priceList(trx, listId);
        if (!list) throw new NotFoundError(`No such price list: ${listId}`, 'price_list_id');
        const account = await this.directory.lineage(custId);
        if (!account) throw new NotFoundError(`No such customer: ${custId}`, 'cust_id');
        if (account.currency !== list.currency.trim()) {
          throw new InputError(
            `Price list ${listId} is in ${list.currency.trim()}; account ${custId} buys in ${account.currency}`,
            'price_list_id',
          );
        }
      }
      await this.repo.setAssignment(trx, custId, listId);
      const lists = [previous, listId].filter((l): l is string => typeof l === 'string' && l !== '');
      if (previous !== listId) {
        const items = await this.repo.itemsOfLists(trx, [...new Set(lists)]);
        const now = this.clock.now();
        await this.publish(
          trx,
          items.map((item) => itemChangeMessage(item, ['pricing'], [custId], now)),
        );
      }
      return { object: 'price_list_assignment' as const, cust_id: custId, price_list_id: listId };
    });
  }

  private publish(trx: Db, messages: OutboxMessage[]): Promise<void> {
    return enqueueMessages(trx, messages);
  }
}
