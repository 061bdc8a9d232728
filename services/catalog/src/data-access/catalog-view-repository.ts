// The catalog as one account sees it, in one SQL statement per read: the account's price lists (in
// its currency, nearest first), its availability rules (nearest first) and the visibility rules of
// its lineage are resolved inside PostgreSQL for just the rows of the answer. Search ranks with
// PostgreSQL full-text search (English stems; item code weighs A, name B, description C) and
// pg_trgm word similarity for typos, both on indexes.
import { createHash } from 'node:crypto';
import type { Knex } from 'knex';

type Binding = Knex.RawBinding;
import type { AccountItemRow, AccountTerms } from '../domain/catalog-item';

/** Position after the last row of a page: by item code when browsing, by rank when searching. */
export type ListCursor =
  { kind: 'browse'; itemCode: string } | { kind: 'search'; tier: number; itemCode: string };

export interface ListQuery {
  /** The category and every category below it. */
  categoryIds?: string[];
  available?: boolean;
  q?: string;
  after?: ListCursor;
  limit: number;
}

export type RankedRow = AccountItemRow & { tier?: number };

/**
 * Items in item-code order a full-text search tier reads before it searches its index instead:
 * reading them costs about 1 µs each, a match found on the index and sorted about 2 µs, so a word
 * in fewer than 26 of 2,000 items (1.3%) is found on the index.
 */
const WALK_ROWS = 2000;
/**
 * Items read first: when fewer than PROBE_MIN_FOUND of them match (1%), the walk would hardly fill a
 * page of 26 (1.3% of 2,000) and the tier is looked up on its index straight away.
 */
const PROBE_ROWS = 200;
const PROBE_MIN_FOUND = 2;

const ITEM_COLUMNS = `i.id, i.item_code, i.name, i.description, i.category_id, c.name as category_name,
  i.flags, i.images, i.lead_time_days,
  coalesce(pl.tiers, i.base_tiers) as tiers,
  (i.lifecycle = 'active' and i.stock_state <> 'out_of_stock' and coalesce(av.available, true)) as available`;

/**
 * `lists`: the price lists assigned in the account's lineage in its currency, nearest first;
 * `lin`: the lineage with depths. Bindings: lineage, currency, lineage.
 */
const TERMS_CTE = `with lists as materialized (
    select a.price_list_id, l.depth
    from unnest(?::text[]) with ordinality as l(cust_id, depth)
    join price_list_assignments a on a.cust_id = l.cust_id
    join price_lists p on p.id = a.price_list_id and p.currency = ?
  ), lin as materialized (
    select cust_id, depth from unnest(?::text[]) with ordinality as l(cust_id, depth)
  )`;

/** Joins resolving the account's terms per item row, and the visibility/currency condition. */
const TERMS_JOINS = `join categories c on c.id = i.category_id
  left join lateral (
    select e.tiers from lists
    join price_list_items e on e.price_list_id = lists.price_list_id and e.item_id = i.id
    order by lists.depth limit 1
  ) pl on true
  left join lateral (
    select r.available from lin
    join availability_rules r on r.cust_id = lin.cust_id and r.item_id = i.id
    order by lin.depth limit 1
  ) av on true`;

/** Bindings: lineage, currency. */
const VISIBLE = `(not i.restricted or exists (
    select 1 from item_visibility v where v.item_id = i.id and v.cust_id = any(?::text[])))
  and (pl.tiers is not null or i.currency = ?)`;

/**
 * Session settings the search relies on: a query word counts as a typo of a name's word from a
 * trigram word similarity of 0.5 ("stapeler" ~ "Stapler" is 0.55; pg_trgm's default 0.6 misses it).
 */
export const SEARCH_SESSION_SETTINGS = { 'pg_trgm.word_similarity_threshold': '0.5' };

/**
 * A prepared statement's name: the same for the same text, another for another text. Remembered per
 * text, so a search does not hash its statement again; the texts are as few as the statement's shapes
 * (filters present, search variants), the bound only guards against a shape that varies more.
 */
const STATEMENT_NAMES_MAX = 256;
const statementNames = new Map<string, string>();
function statementName(sql: string): string {
  let name = statementNames.get(sql);
  if (name === undefined) {
    if (statementNames.size >= STATEMENT_NAMES_MAX) statementNames.clear();
    name = `catalog_${createHash('sha1').update(sql).digest('hex').slice(0, 24)}`;
    statementNames.set(sql, name);
  }
  return name;
}

/**
 * The query as the typo tier reads it: the words it looks for near spellings of (`wanted`) and the
 * terms the query excludes (`excluded`, null when none), as websearch_to_tsquery reads a `-` before
 * a word or a quoted phrase (an odd number of dashes negates). Without this split the typo tier
 * looked for the excluded words too and answered exactly the items the query left out
 * ("stapler -desk" found "Desk stapler").
 */
export function typoTierTerms(q: string): { wanted: string; excluded: string | null } {
  const wanted: string[] = [];
  const excluded: string[] = [];
  for (const [, dashes, term] of q.matchAll(/(-[-\s]*)?("[^"]*"?|[^\s"]+)/g)) {
    const negated = ((dashes ?? '').match(/-/g)?.length ?? 0) % 2 === 1;
    (negated ? excluded : wanted).push(term!);
  }
  return { wanted: wanted.join(' '), excluded: excluded.length > 0 ? excluded.join(' or ') : null };
}

export class CatalogViewRepository {
  constructor(private readonly knex: Knex) {}

  private termsBindings(account: AccountTerms): Binding[] {
    return [account.lineage, account.currency, account.lineage];
  }

  /**
   * One page of the account's catalog (limit + 1 rows: the extra says there is more). Two steps in
   * one statement: the page's ids are chosen with cheap conditions only (visibility, currency,
   * category, availability, the search match and its rank), then the account's terms (its price
   * list tiers, its availability) are resolved for those rows alone.
   */
  async list(account: AccountTerms, query: ListQuery): Promise<RankedRow[]> {
    const filters: string[] = [
      `(not i.restricted or exists (
         select 1 from item_visibility v where v.item_id = i.id and v.cust_id = any(?::text[])))`,
      `(i.currency = ? or exists (
         select 1 from lists join price_list_items e on e.price_list_id = lists.price_list_id and e.item_id = i.id))`,
    ];
    const bindings: Binding[] = [account.lineage, account.currency];
    if (query.categoryIds) {
      filters.push('i.category_id = any(?::text[])');
      bindings.push(query.categoryIds);
    }
    if (query.available !== undefined) {
      filters.push(`(i.lifecycle = 'active' and i.stock_state <> 'out_of_stock' and coalesce((
         select r.available from lin join availability_rules r on r.cust_id = lin.cust_id and r.item_id = i.id
         order by lin.depth limit 1), true)) = ?`);
      bindings.push(query.available);
    }
    const page =
      query.q === undefined
        ? this.browsePage(filters, bindings, query)
        : this.searchPage(query.q, filters, bindings, query);
    const sql = `${TERMS_CTE}, page as (${page.sql})
      select ${ITEM_COLUMNS}${query.q === undefined ? '' : ', page.tier'}
      from page join items i on i.id = page.id ${TERMS_JOINS}
      order by ${page.order}`;
    const raw = this.knex.raw(sql, [...this.termsBindings(account), ...page.bindings]);
    // A search is a named prepared statement: parsed and planned once per session and shape.
    const { rows } = await (query.q === undefined ? raw : raw.options({ name: statementName(sql) }));
    return rows as RankedRow[];
  }

  private browsePage(filters: string[], bindings: Binding[], query: ListQuery) {
    const after = query.after?.kind === 'browse' ? query.after : undefined;
    return {
      sql: `select i.id, i.item_code from items i
        where ${[...filters, ...(after ? ['i.item_code > ?'] : [])].join(' and ')}
        order by i.item_code limit ?`,
      bindings: [...bindings, ...(after ? [after.itemCode] : []), query.limit],
      order: 'page.item_code',
    };
  }

  /**
   * Ranked in tiers, each found on its own index and ordered by item code within: 0 the exact item
   * code, 1 a full-text match (English stems) in the code or name, 2 one in the description only,
   * 3 a typo of a word of the name. The tiers are branches of one UNION ALL under the page's LIMIT,
   * so a later tier is not even searched once earlier ones fill the page.
   *
   * The full-text tiers 1 to 3 do not depend on the planner knowing how common the searched words
   * are (a prepared statement's plan is made once for any words): each first reads the first
   * WALK_ROWS items in item-code order and keeps those that match; when that fills the page (a
   * common word: "stapler" is in one name of 60, "goes" in every description), those are the page.
   * Only when it does not (a rarer word) is the tier searched on its full-text index, every match
   * fetched and sorted. Either way the rows are the tier's first matches in item-code order. The
   * walk is skipped when fewer than PROBE_MIN_FOUND of the first PROBE_ROWS items match (a word found nowhere, an item
   * code searched for, which the code and name tiers would otherwise walk for nothing).
   *
   * The typo tier looks each word of the query up among the distinct words of the names
   * (item_name_words, pg_trgm word similarity >= 0.5 on its trigram index) and searches the names'
   * full-text index for them: every query word must be in the name or near-spelled there. When a
   * query word has no near word, `near` is null and the tier is not searched at all. The words the
   * query excludes (`-desk`, `-"long reach"`) are not looked for, and an item whose name holds them
   * is left out, as the full-text tiers leave it out (typoTierTerms).
   *
   * The query's tsquery and lower-cased text are computed once (`q`), not per row.
   */
  private searchPage(q: string, filters: string[], bindings: Binding[], query: ListQuery) {
    const after = query.after?.kind === 'search' ? query.after : undefined;
    const tsq = '(select tsq from q)';
    const notCode = 'lower(i.item_code) <> (select code from q)';
    const terms = typoTierTerms(q);
    const ctes: string[] = [
      `q as materialized (select websearch_to_tsquery('english', ?) as tsq, lower(?) as code,
        websearch_to_tsquery('english', ?::text) as excluded)`,
      // The names' words near each query word, as one tsquery: (near | words) & (of | the next).
      `near as materialized (
        select to_tsquery('english', string_agg('(' || t.words || ')', ' & ')) as tsq
        from (select string_agg(w.word, ' | ') as words
              from catalog_words(?) with ordinality as q(word, n)
              join item_name_words w on q.word <% w.word
              group by q.n) t
        having count(*) = (select count(*) from catalog_words(?)))`,
    ];
    const cteBindings: Binding[] = [q, q, terms.excluded, terms.wanted, terms.wanted];
    const tiers: { match: string; walk?: boolean }[] = [
      { match: 'lower(i.item_code) = (select code from q)' },
      { match: `i.name_search @@ ${tsq} and ${notCode}`, walk: true },
      { match: `i.search @@ ${tsq} and not (i.name_search @@ ${tsq}) and ${notCode}`, walk: true },
      {
        match: `(select tsq from near) is not null and i.name_search @@ (select tsq from near)
          and not (i.search @@ ${tsq}) and ${notCode}
          and not coalesce(i.name_search @@ (select excluded from q), false)`,
        walk: true,
      },
    ];
    const branches: string[] = [];
    const all: Binding[] = [];
    tiers.forEach(({ match, walk }, tier) => {
      if (after && tier < after.tier) return;
      const resume = after && tier === after.tier ? [after.itemCode] : [];
      const from = resume.length ? ['i.item_code > ?'] : [];
      const where = [match, ...filters];
      if (!walk) {
        branches.push(`(select i.id, i.item_code, ${tier} as tier from items i
          where ${[...where, ...from].join(' and ')} order by i.item_code limit ?)`);
        all.push(...bindings, ...resume, query.limit);
        return;
      }
      // The first PROBE_ROWS items (after the cursor) in item-code order: how many match (the
      // words and the filters); when too few do, the walk would not fill the page and is not read.
      const first = (rows: number) => `(
          select i.id, i.item_code, i.name_search, i.search, i.restricted, i.currency, i.category_id,
            i.lifecycle, i.stock_state
          from items i ${from.length ? `where ${from.join(' and ')}` : ''}
          order by i.item_code limit ${rows}) i`;
      ctes.push(
        `probe${tier} as materialized (select count(*) as found from ${first(PROBE_ROWS)} where ${where.join(' and ')})`,
      );
      cteBindings.push(...resume, ...bindings);
      // The first WALK_ROWS items (after the cursor) in item-code order, those of them that match.
      ctes.push(`walk${tier} as materialized (
        select i.id, i.item_code from ${first(WALK_ROWS)}
        where (select found from probe${tier}) >= ${PROBE_MIN_FOUND} and ${where.join(' and ')} order by i.item_code limit ?)`);
      cteBindings.push(...resume, ...bindings, query.limit);
      branches.push(`(select id, item_code, ${tier} as tier from walk${tier}
          where (select count(*) from walk${tier}) >= ?)`);
      all.push(query.limit);
      branches.push(`(select i.id, i.item_code, ${tier} as tier from items i
          where (select count(*) from walk${tier}) < ? and ${[...where, ...from].join(' and ')}
          order by i.item_code limit ?)`);
      all.push(query.limit, ...bindings, ...resume, query.limit);
    });
    return {
      sql: `with ${ctes.join(', ')} select * from (${branches.join(' union all ')}) tiers limit ?`,
      bindings: [...cteBindings, ...all, query.limit],
      order: 'page.tier, page.item_code',
    };
  }

  /** Items by id or by item code, as the account sees them; absent when it cannot see them. */
  async find(account: AccountTerms, by: { ids?: string[]; codes?: string[] }): Promise<AccountItemRow[]> {
    const key = by.ids ? 'i.id' : 'i.item_code';
    const sql = `${TERMS_CTE}
      select ${ITEM_COLUMNS} from items i ${TERMS_JOINS}
      where ${key} = any(?::text[]) and ${VISIBLE}`;
    // A named (prepared) statement: each pooled connection parses it once, and PostgreSQL may keep
    // its plan; planning this statement cost more than running it (the pricing call of every order).
    const { rows } = await this.knex
      .raw(sql, [...this.termsBindings(account), by.ids ?? by.codes ?? [], account.lineage, account.currency])
      .options({ name: by.ids ? 'catalog_items_by_id' : 'catalog_items_by_code' });
    return rows as AccountItemRow[];
  }

  /** Item id and code by id or code, whatever any account sees (the views call); undefined if unknown. */
  async itemKey(by: { id?: string; code?: string }): Promise<{ id: string; item_code: string } | undefined> {
    const row = await this.knex('items')
      .select('id', 'item_code')
      .where(by.id !== undefined ? { id: by.id } : { item_code: by.code ?? '' })
      .first();
    return row as { id: string; item_code: string } | undefined;
  }

  /** The category and all categories below it; undefined for an unknown category. */
  async categorySubtree(categoryId: string): Promise<string[] | undefined> {
    const { rows } = await this.knex.raw(
      `with recursive sub as (
         select id from categories where id = ?
         union all
         select c.id from categories c join sub on c.parent_id = sub.id
       ) select id from sub`,
      [categoryId],
    );
    const ids = (rows as { id: string }[]).map((r) => r.id);
    return ids.length > 0 ? ids : undefined;
  }
}
