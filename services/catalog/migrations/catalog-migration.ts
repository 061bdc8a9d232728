// The catalog: a category tree, items (base tiers in the item's currency, lifecycle, stock state,
// a weighted full-text vector and a trigram index for typos), and the per-account terms (price lists
// and their assignment, visibility and availability rules), each keyed by the account they apply to
// (inherited down the tree by the query, not copied to descendants).
import type { Knex } from 'knex';

export const catalogMigration = {
  name: '20261124000100_catalog',
  async up(knex: Knex): Promise<void> {
    // Trusted extensions (PostgreSQL 13+): the database owner may create them.
    await knex.raw('create extension if not exists pg_trgm');
    await knex.schema.createTable('categories', (t) => {
      t.text('id').primary();
      t.text('name').notNullable();
      t.text('parent_id').nullable().references('id').inTable('categories');
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.index(['parent_id']);
    });
    await knex.schema.createTable('items', (t) => {
      t.text('id').primary();
      t.text('item_code').notNullable().unique();
      t.text('name').notNullable();
      t.text('description').notNullable().defaultTo('');
      t.text('category_id').notNullable().references('id').inTable('categories');
      t.specificType('flags', 'text[]').notNullable().defaultTo('{}');
      t.specificType('images', 'text[]').notNullable().defaultTo('{}');
      t.specificType('currency', 'char(3)').notNullable();
      /** [{min_qty, amount}] ascending by min_qty, the first at min_qty 1. */
      t.jsonb('base_tiers').notNullable();
      t.integer('lead_time_days').notNullable().defaultTo(0);
      t.text('lifecycle').notNullable().defaultTo('active');
      t.text('stock_state').notNullable().defaultTo('in_stock');
      /** Visible only to the accounts of item_visibility (and their descendants). */
      t.boolean('restricted').notNullable().defaultTo(false);
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.timestamp('updated_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
      t.index(['category_id', 'item_code']);
    });
    await knex.raw(
      `alter table items add constraint items_lifecycle_check check (lifecycle in ('active', 'discontinued'))`,
    );
    await knex.raw(
      `alter table items add constraint items_stock_state_check check (stock_state in ('in_stock', 'low_stock', 'out_of_stock'))`,
    );
    // Ranked search: the item code weighs A, the name B, the description C (English stems).
    await knex.raw(`
      alter table items add column search tsvector generated always as (
        setweight(to_tsvector('english'::regconfig, item_code), 'A') ||
        setweight(to_tsvector('english'::regconfig, name), 'B') ||
        setweight(to_tsvector('english'::regconfig, description), 'C')
      ) stored`);
    await knex.raw('create index items_search_idx on items using gin (search)');
    await knex.raw('create index items_name_trgm_idx on items using gin (name gin_trgm_ops)');
    await knex.raw('create index items_code_lower_idx on items (lower(item_code))');

    await knex.schema.createTable('item_visibility', (t) => {
      t.text('item_id').notNullable().references('id').inTable('items').onDelete('cascade');
      t.text('cust_id').notNullable();
      t.primary(['item_id', 'cust_id']);
      t.index(['cust_id']);
    });
    await knex.schema.createTable('availability_rules', (t) => {
      t.text('cust_id').notNullable();
      t.text('item_id').notNullable().references('id').inTable('items').onDelete('cascade');
      t.boolean('available').notNullable();
      t.primary(['cust_id', 'item_id']);
      t.index(['item_id']);
    });
    await knex.schema.createTable('price_lists', (t) => {
      t.text('id').primary();
      t.text('name').notNullable();
      t.specificType('currency', 'char(3)').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    });
    await knex.schema.createTable('price_list_items', (t) => {
      t.text('price_list_id').notNullable().references('id').inTable('price_lists').onDelete('cascade');
      t.text('item_id').notNullable().references('id').inTable('items').onDelete('cascade');
      t.jsonb('tiers').notNullable();
      t.primary(['price_list_id', 'item_id']);
      t.index(['item_id']);
    });
    await knex.schema.createTable('price_list_assignments', (t) => {
      t.text('cust_id').primary();
      t.text('price_list_id').notNullable().references('id').inTable('price_lists').onDelete('cascade');
      t.index(['price_list_id']);
    });
  },
  async down(knex: Knex): Promise<void> {
    for (const table of [
      'price_list_assignments',
      'price_list_items',
      'price_lists',
      'availability_rules',
      'item_visibility',
      'items',
      'categories',
    ]) {
      await knex.schema.dropTableIfExists(table);
    }
  },
};
