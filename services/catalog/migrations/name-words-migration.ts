// The words of the item names, once each, with a trigram index: the typo tier of the search looks a
// misspelt word up among these few thousand words (pg_trgm) and then searches the names' full-text
// index for the words found, instead of computing a trigram similarity against the name of every
// candidate item (1,500 names for one common word, 25 ms). This is pg_trgm's documented way of
// spelling suggestions (a table of the distinct words, trigram-indexed). Statement triggers keep it:
// every inserted or updated name adds its new words in one statement per insert or update, so a
// 5,000-row import batch adds its words at once. Words are never removed (a word no name holds any
// more only makes the typo tier search for it and find nothing). The trigram index of whole names
// has no reader left and goes: it was the dearest index of the import to keep up.
import type { Knex } from 'knex';

export const nameWordsMigration = {
  name: '20261124000300_catalog_name_words',
  async up(knex: Knex): Promise<void> {
    // Words as the search splits a query: lower case, runs of letters and digits.
    await knex.raw(`
      create function catalog_words(text) returns setof text language sql immutable strict parallel safe as
      $$ select w from regexp_split_to_table(lower($1), '[^[:alnum:]]+') as w where w <> '' $$`);
    await knex.raw('create table item_name_words (word text primary key)');
    await knex.raw(`
      create function item_name_words_add() returns trigger language plpgsql as $$
      begin
        insert into item_name_words (word)
        select distinct w from changed_items, catalog_words(changed_items.name) as w
        on conflict do nothing;
        return null;
      end $$`);
    for (const event of ['insert', 'update']) {
      await knex.raw(`
        create trigger items_name_words_${event} after ${event} on items
        referencing new table as changed_items
        for each statement execute function item_name_words_add()`);
    }
    await knex.raw(`
      insert into item_name_words (word) select distinct w from items, catalog_words(items.name) as w
      on conflict do nothing`);
    // Built after the words are in (built whole, not through the index's pending list).
    await knex.raw('create index item_name_words_trgm_idx on item_name_words using gin (word gin_trgm_ops)');
    await knex.raw('drop index items_name_trgm_idx');
  },
  async down(knex: Knex): Promise<void> {
    await knex.raw('create index items_name_trgm_idx on items using gin (name gin_trgm_ops)');
    await knex.raw('drop trigger items_name_words_insert on items');
    await knex.raw('drop trigger items_name_words_update on items');
    await knex.raw('drop function item_name_words_add()');
    await knex.raw('drop table item_name_words');
    await knex.raw('drop function catalog_words(text)');
  },
};
