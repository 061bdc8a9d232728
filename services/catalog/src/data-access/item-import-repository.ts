// Writing many items at once: batches of 5,000 rows as arrays unnested by one INSERT ... ON CONFLICT
// (item_code) DO UPDATE each (never one statement per row), returning what each item was before so
// that only real changes become change messages.
import type { Knex } from 'knex';
import { takeTransactionLock } from '@ordering/db';
import { SEARCH_GIN_INDEXES } from '../../migrations';
import type { ItemValues } from './catalog-admin-repository';
import type { ItemState } from '../domain/item-changes';

export const IMPORT_BATCH_SIZE = 5000;

/**
 * Key of the transaction-scoped advisory lock that makes imports take turns (any replica): two
 * imports of the same item codes at once locked the rows in opposite orders (deadlock, one of them
 * aborted), or the later one read the items as they were before the earlier one committed (it
 * reported them created and published no change message for the prices it changed).
 */
const IMPORT_LOCK_KEY = 'catalog.items.import';

export interface UpsertedItem {
  id: string;
  item_code: string;
  /** The item before this import; null for a new item. */
  before: ItemState | null;
}

export class ItemImportRepository {
  constructor(private readonly knex: Knex) {}

  async upsert(
    trx: Knex.Transaction,
    rows: { id: string; values: ItemValues }[],
    now: Date,
  ): Promise<UpsertedItem[]> {
    // Waits for an import still running; each statement after this sees what it committed.
    await takeTransactionLock(trx, IMPORT_LOCK_KEY);
    const out: UpsertedItem[] = [];
    for (let i = 0; i < rows.length; i += IMPORT_BATCH_SIZE) {
      out.push(...(await this.upsertBatch(trx, rows.slice(i, i + IMPORT_BATCH_SIZE), now)));
    }
    // What the import left in the search indexes' pending lists is merged now, not read by every
    // search until autovacuum gets to it (search-index-pending-migration.ts).
    await trx.raw(
      `select ${SEARCH_GIN_INDEXES.map(() => 'gin_clean_pending_list(?::regclass)').join(', ')}`,
      SEARCH_GIN_INDEXES,
    );
    return out;
  }

  private async upsertBatch(
    trx: Knex.Transaction,
    rows: { id: string; values: ItemValues }[],
    now: Date,
  ): Promise<UpsertedItem[]> {
    const col = <T>(f: (r: { id: string; values: ItemValues }) => T) => rows.map(f);
    const { rows: result } = await trx.raw(
      `with input as (
         select * from unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[],
                              ?::text[], ?::text[], ?::int[], ?::text[], ?::text[])
           as t(id, item_code, name, description, category_id, flags, images, currency, base_tiers,
                lead_time_days, lifecycle, stock_state)
       ), old as (
         select i.* from items i join input using (item_code)
       ), up as (
         insert into items as i (id, item_code, name, description, category_id, flags, images, currency,
                                 base_tiers, lead_time_days, lifecycle, stock_state, created_at, updated_at)
         select id, item_code, name, description, category_id,
                array(select jsonb_array_elements_text(flags::jsonb)),
                array(select jsonb_array_elements_text(images::jsonb)),
                currency, base_tiers::jsonb, lead_time_days, lifecycle, stock_state, ?, ?
         from input
         on conflict (item_code) do update set
           name = excluded.name, description = excluded.description, category_id = excluded.category_id,
           flags = excluded.flags, images = excluded.images, currency = excluded.currency,
           base_tiers = excluded.base_tiers, lead_time_days = excluded.lead_time_days,
           lifecycle = excluded.lifecycle, stock_state = excluded.stock_state, updated_at = excluded.updated_at
         returning i.id, i.item_code
       )
       select up.id, up.item_code, old.id is not null as existed, old.name, old.description,
              old.category_id, old.flags, old.images, old.currency, old.base_tiers, old.lead_time_days,
              old.lifecycle, old.stock_state
       from up left join old using (item_code)`,
      [
        col((r) => r.id),
        col((r) => r.values.item_code),
        col((r) => r.values.name),
        col((r) => r.values.description),
        col((r) => r.values.category_id),
        col((r) => JSON.stringify(r.values.flags)),
        col((r) => JSON.stringify(r.values.images)),
        col((r) => r.values.currency),
        col((r) => JSON.stringify(r.values.base_tiers)),
        col((r) => r.values.lead_time_days),
        col((r) => r.values.lifecycle),
        col((r) => r.values.stock_state),
        now,
        now,
      ],
    );
    return (result as (ItemState & { id: string; item_code: string; existed: boolean })[]).map((r) => ({
      id: r.id,
      item_code: r.item_code,
      before: r.existed
        ? {
            name: r.name,
            description: r.description,
            category_id: r.category_id,
            flags: r.flags,
            images: r.images,
            currency: r.currency.trim(),
            base_tiers: r.base_tiers,
            lead_time_days: r.lead_time_days,
            lifecycle: r.lifecycle,
            stock_state: r.stock_state,
          }
        : null,
    }));
  }

  async categoryIds(): Promise<Set<string>> {
    const rows = await this.knex('categories').select('id');
    return new Set(rows.map((r: { id: string }) => r.id));
  }

  transaction<T>(work: (trx: Knex.Transaction) => Promise<T>): Promise<T> {
    return this.knex.transaction(work);
  }
}
