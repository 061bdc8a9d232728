// Operators' reads and writes of the catalog: categories, items (base terms), visibility and
// availability rules, price lists and their assignment to accounts. The only place besides the
// view and import repositories where knex appears.
import type { Knex } from 'knex';
import { takeTransactionLock } from '@ordering/db';
import type { StoredTier } from '../domain/catalog-item';

export type Db = Knex | Knex.Transaction;

export interface CategoryRow {
  id: string;
  name: string;
  parent_id: string | null;
}

export interface ItemRow {
  id: string;
  item_code: string;
  name: string;
  description: string;
  category_id: string;
  flags: string[];
  images: string[];
  currency: string;
  base_tiers: StoredTier[];
  lead_time_days: number;
  lifecycle: string;
  stock_state: string;
  restricted: boolean;
  created_at: Date;
  updated_at: Date;
}

export type ItemValues = Omit<ItemRow, 'id' | 'restricted' | 'created_at' | 'updated_at'>;

const ITEM_SELECT = [
  'id',
  'item_code',
  'name',
  'description',
  'category_id',
  'flags',
  'images',
  'currency',
  'base_tiers',
  'lead_time_days',
  'lifecycle',
  'stock_state',
  'restricted',
  'created_at',
  'updated_at',
];

export class CatalogAdminRepository {
  constructor(readonly knex: Knex) {}

  transaction<T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    return this.knex.transaction(work);
  }

  // Categories -------------------------------------------------------------------------------

  async categories(db: Db = this.knex): Promise<CategoryRow[]> {
    return db('categories').select('id', 'name', 'parent_id').orderBy('id');
  }

  async category(db: Db, id: string): Promise<CategoryRow | undefined> {
    return db('categories').select('id', 'name', 'parent_id').where({ id }).first();
  }

  async insertCategory(db: Db, row: CategoryRow): Promise<void> {
    await db('categories').insert(row);
  }

  async updateCategory(db: Db, id: string, changes: Partial<CategoryRow>): Promise<void> {
    await db('categories').where({ id }).update(changes);
  }

  /** Whether `ancestorId` is `id` or one of its ancestors (a move under it would make a cycle). */
  async isAncestorOrSelf(db: Db, ancestorId: string, id: string): Promise<boolean> {
    const { rows } = await db.raw(
      `with recursive up as (
         select id, parent_id from categories where id = ?
         union all
         select c.id, c.parent_id from categories c join up on c.id = up.parent_id
       ) select 1 from up where id = ? limit 1`,
      [id, ancestorId],
    );
    return rows.length > 0;
  }

  // Items ------------------------------------------------------------------------------------

  /** By id or by item code; `forUpdate` locks the row for the transaction. */
  async item(db: Db, ref: string, forUpdate = false): Promise<ItemRow | undefined> {
    const query = db('items')
      .select(ITEM_SELECT)
      .where((w) => w.where({ id: ref }).orWhere({ item_code: ref }))
      .first();
    return (forUpdate ? query.forUpdate() : query) as Promise<ItemRow | undefined>;
  }

  async listItems(db: Db, query: { afterCode?: string; limit: number }): Promise<ItemRow[]> {
    const q = db('items').select(ITEM_SELECT).orderBy('item_code').limit(query.limit);
    if (query.afterCode !== undefined) q.where('item_code', '>', query.afterCode);
    return q as Promise<ItemRow[]>;
  }

  async insertItem(db: Db, id: string, values: ItemValues, now: Date): Promise<void> {
    await db('items').insert({
      id,
      ...values,
      base_tiers: JSON.stringify(values.base_tiers),
      created_at: now,
      updated_at: now,
    });
  }

  async updateItem(db: Db, id: string, values: Partial<ItemValues & { restricted: boolean }>, now: Date) {
    const row: Record<string, unknown> = { ...values, updated_at: now };
    if (values.base_tiers) row.base_tiers = JSON.stringify(values.base_tiers);
    await db('items').where({ id }).update(row);
  }

  // Visibility and availability ------------------------------------------------------------------

  async visibleTo(db: Db, itemId: string): Promise<string[]> {
    const rows = await db('item_visibility').select('cust_id').where({ item_id: itemId }).orderBy('cust_id');
    return rows.map((r: { cust_id: string }) => r.cust_id);
  }

  async setVisibleTo(db: Db, itemId: string, custIds: string[]): Promise<void> {
    await db('item_visibility').where({ item_id: itemId }).delete();
    if (custIds.length > 0) {
      await db('item_visibility').insert(custIds.map((cust_id) => ({ item_id: itemId, cust_id })));
    }
  }

  async availabilityRules(db: Db, itemId: string): Promise<{ cust_id: string; available: boolean }[]> {
    return db('availability_rules')
      .select('cust_id', 'available')
      .where({ item_id: itemId })
      .orderBy('cust_id');
  }

  /** Sets or removes an account's rule; true when that changed anything (a rule set again does not). */
  async setAvailability(db: Db, itemId: string, custId: string, available: boolean | null): Promise<boolean> {
    if (available === null) {
      return (await db('availability_rules').where({ item_id: itemId, cust_id: custId }).delete()) > 0;
    }
    const written = await db('availability_rules')
      .insert({ item_id: itemId, cust_id: custId, available })
      .onConflict(['cust_id', 'item_id'])
      .merge()
      .where('availability_rules.available', '<>', available)
      .returning('item_id');
    return written.length > 0;
  }

  // Price lists ------------------------------------------------------------------------------

  async priceList(db: Db, id: string): Promise<{ id: string; name: string; currency: string } | undefined> {
    return db('price_lists').select('id', 'name', 'currency').where({ id }).first();
  }

  async priceLists(db: Db = this.knex): Promise<{ id: string; name: string; currency: string }[]> {
    return db('price_lists').select('id', 'name', 'currency').orderBy('id');
  }

  async insertPriceList(db: Db, row: { id: string; name: string; currency: string }): Promise<void> {
    await db('price_lists').insert(row);
  }

  async priceListEntries(
    db: Db,
    listId: string,
  ): Promise<{ item_id: string; item_code: string; tiers: StoredTier[] }[]> {
    return db('price_list_items as e')
      .join('items as i', 'i.id', 'e.item_id')
      .select('e.item_id', 'i.item_code', 'e.tiers')
      .where('e.price_list_id', listId)
      .orderBy('i.item_code');
  }

  /** Sets or removes the list's tiers for an item; true when that changed them (the same tiers again do not). */
  async setPriceListEntry(
    db: Db,
    listId: string,
    itemId: string,
    tiers: StoredTier[] | null,
  ): Promise<boolean> {
    if (tiers === null) {
      return (await db('price_list_items').where({ price_list_id: listId, item_id: itemId }).delete()) > 0;
    }
    const written = await db('price_list_items')
      .insert({ price_list_id: listId, item_id: itemId, tiers: JSON.stringify(tiers) })
      .onConflict(['price_list_id', 'item_id'])
      .merge()
      .whereRaw('price_list_items.tiers is distinct from excluded.tiers')
      .returning('item_id');
    return written.length > 0;
  }

  async assignedAccounts(db: Db, listId: string): Promise<string[]> {
    const rows = await db('price_list_assignments')
      .select('cust_id')
      .where({ price_list_id: listId })
      .orderBy('cust_id');
    return rows.map((r: { cust_id: string }) => r.cust_id);
  }

  async assignments(db: Db = this.knex): Promise<{ cust_id: string; price_list_id: string }[]> {
    return db('price_list_assignments').select('cust_id', 'price_list_id').orderBy('cust_id');
  }

  /**
   * Makes changes of one account's assignment take turns until `trx` ends (a row lock cannot: the
   * account may have no assignment row yet), so each reads the list the previous one left.
   */
  async lockAssignment(trx: Knex.Transaction, custId: string): Promise<void> {
    await takeTransactionLock(trx, `catalog.assignment:${custId}`);
  }

  async assignment(db: Db, custId: string): Promise<string | undefined> {
    const row = await db('price_list_assignments').select('price_list_id').where({ cust_id: custId }).first();
    return row?.price_list_id as string | undefined;
  }

  async setAssignment(db: Db, custId: string, listId: string | null): Promise<void> {
    if (listId === null) await db('price_list_assignments').where({ cust_id: custId }).delete();
    else
      await db('price_list_assignments')
        .insert({ cust_id: custId, price_list_id: listId })
        .onConflict('cust_id')
        .merge();
  }

  /** Items priced by any of these lists (the items whose price an assignment change moves). */
  async itemsOfLists(db: Db, listIds: string[]): Promise<{ id: string; item_code: string }[]> {
    if (listIds.length === 0) return [];
    return db('price_list_items as e')
      .join('items as i', 'i.id', 'e.item_id')
      .distinct('i.id', 'i.item_code')
      .whereIn('e.price_list_id', listIds);
  }
}
