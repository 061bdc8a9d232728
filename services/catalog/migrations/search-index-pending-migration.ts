// The GIN indexes of the search keep new entries in a pending list (fastupdate) until it is merged
// into the index; every search reads the whole pending list, unordered. At PostgreSQL's default of
// 4 MB that is up to 512 pages per index per search (a 100,000-item import left 262 and 267 pages
// in the full-text and name trigram indexes: 10 ms of a search that finds nothing). 256 kB bounds it to 32 pages and, measured,
// does not slow the bulk import (merging small lists often costs no more than big ones rarely);
// the import also merges what it left (gin_clean_pending_list) before it commits.
import type { Knex } from 'knex';

/**
 * The search's GIN indexes: full-text of code + name, of code + name + description, trigrams of the
 * names' words (name-words-migration.ts).
 */
export const SEARCH_GIN_INDEXES = ['items_name_search_idx', 'items_search_idx', 'item_name_words_trgm_idx'];

export const searchIndexPendingMigration = {
  name: '20261124000400_catalog_search_index_pending',
  async up(knex: Knex): Promise<void> {
    for (const index of SEARCH_GIN_INDEXES) {
      await knex.raw(`alter index ${index} set (gin_pending_list_limit = 256)`);
    }
  },
  async down(knex: Knex): Promise<void> {
    for (const index of SEARCH_GIN_INDEXES) {
      await knex.raw(`alter index ${index} reset (gin_pending_list_limit)`);
    }
  },
};
