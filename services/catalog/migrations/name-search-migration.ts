// Search tiers on their own index: the item code (A) and the name (B) as a tsvector of their own, so
// that "matches in the name" is an index lookup, not a filter over every full-text match.
import type { Knex } from 'knex';

export const nameSearchMigration = {
  name: '20261124000200_catalog_name_search',
  async up(knex: Knex): Promise<void> {
    await knex.raw(`
      alter table items add column name_search tsvector generated always as (
        setweight(to_tsvector('english'::regconfig, item_code), 'A') ||
        setweight(to_tsvector('english'::regconfig, name), 'B')
      ) stored`);
    await knex.raw('create index items_name_search_idx on items using gin (name_search)');
  },
  async down(knex: Knex): Promise<void> {
    await knex.raw('alter table items drop column name_search');
  },
};
