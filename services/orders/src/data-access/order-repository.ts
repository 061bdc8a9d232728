// The only place that knows how an order is stored: rows of `orders` and `order_items` <-> the
// aggregate's state. Bound to the pool or to one transaction.
import type { Knex } from 'knex';
import type { OrderStatus } from '@ordering/contracts';
import { OUTBOX_TABLE, type OutboxInsert } from '@ordering/messaging';
import { Order, type OrderLine, type OrderState } from '../domain/order';

interface OrderRow {
  id: string;
  cust_id: string;
  ordered_by_login: string;
  ordered_by_name: string;
  status: OrderStatus;
  currency: string;
  subtotal: string | number;
  tax: string | number;
  shipping: string | number;
  total: string | number;
  shipping_address: OrderState['shipping_address'];
  cost_center: string | null;
  po_number: string | null;
  submitted_at: Date;
  approved_at: Date | null;
  in_production_at: Date | null;
  delivered_at: Date | null;
  cancelled_at: Date | null;
  cancellation: OrderState['cancellation'];
  rejection: OrderState['rejection'];
  shipment: OrderState['shipment'];
}

interface ItemRow {
  id: string;
  order_id: string;
  position: number;
  item_code: string;
  description: string;
  quantity: number;
  unit_price: string | number;
  line_total: string | number;
}

/** Which orders a list may show: an account set, optionally only those a login placed or may approve. */
export interface OrderFilter {
  custIds: string[];
  /** Only orders this login placed or whose approval queue it was in. */
  ownOrQueuedFor?: string;
  status?: OrderStatus;
  createdAfter?: Date;
  /** Continue after this position (newest first: `submitted_at` desc, then `id` desc). */
  after?: { submittedAt: Date; id: string };
  limit: number;
}

/** Orders of up to this many lines are placed with a prepared statement (one per shape, kept). */
const PREPARED_MAX_LINES = 10;

const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));

function stateRow(s: OrderState, now: Date) {
  return {
    id: s.id,
    cust_id: s.cust_id,
    ordered_by_login: s.ordered_by.login,
    ordered_by_name: s.ordered_by.name,
    status: s.status,
    currency: s.currency,
    subtotal: s.subtotal,
    tax: s.tax,
    shipping: s.shipping,
    total: s.total,
    shipping_address: json(s.shipping_address),
    cost_center: s.cost_center,
    po_number: s.po_number,
    submitted_at: s.submitted_at,
    approved_at: s.approved_at,
    in_production_at: s.in_production_at,
    delivered_at: s.delivered_at,
    cancelled_at: s.cancelled_at,
    cancellation: json(s.cancellation),
    rejection: json(s.rejection),
    shipment: json(s.shipment),
    updated_at: now,
  };
}

function toOrder(row: OrderRow, items: ItemRow[]): Order {
  const lines: OrderLine[] = items
    .sort((a, b) => a.position - b.position)
    .map((i) => ({
      id: i.id,
      item_code: i.item_code,
      description: i.description,
      quantity: i.quantity,
      unit_price: Number(i.unit_price),
      line_total: Number(i.line_total),
    }));
  return new Order({
    id: row.id,
    cust_id: row.cust_id,
    ordered_by: { login: row.ordered_by_login, name: row.ordered_by_name },
    status: row.status,
    currency: row.currency,
    subtotal: Number(row.subtotal),
    tax: Number(row.tax),
    shipping: Number(row.shipping),
    total: Number(row.total),
    shipping_address: row.shipping_address,
    cost_center: row.cost_center,
    po_number: row.po_number,
    items: lines,
    submitted_at: row.submitted_at,
    approved_at: row.approved_at,
    in_production_at: row.in_production_at,
    delivered_at: row.delivered_at,
    cancelled_at: row.cancelled_at,
    cancellation: row.cancellation,
    rejection: row.rejection,
    shipment: row.shipment,
  });
}

function itemRow(orderId: string, l: OrderLine, position: number) {
  return {
    id: l.id,
    order_id: orderId,
    position,
    item_code: l.item_code,
    description: l.description,
    quantity: l.quantity,
    unit_price: l.unit_price,
    line_total: l.line_total,
  };
}

type Columns<T> = readonly (keyof T & string)[];
const ORDER_COLUMNS: Columns<ReturnType<typeof stateRow>> = [
  'id',
  'cust_id',
  'ordered_by_login',
  'ordered_by_name',
  'status',
  'currency',
  'subtotal',
  'tax',
  'shipping',
  'total',
  'shipping_address',
  'cost_center',
  'po_number',
  'submitted_at',
  'approved_at',
  'in_production_at',
  'delivered_at',
  'cancelled_at',
  'cancellation',
  'rejection',
  'shipment',
  'updated_at',
];
const ITEM_COLUMNS: Columns<ReturnType<typeof itemRow>> = [
  'id',
  'order_id',
  'position',
  'item_code',
  'description',
  'quantity',
  'unit_price',
  'line_total',
];
const OUTBOX_COLUMNS: Columns<OutboxInsert> = [
  'topic',
  'key',
  'event_id',
  'event_type',
  'payload',
  'headers',
];

interface PlacingStatement {
  /** The prepared statement's name: one per shape. */
  name: string;
  /** Its text, `$n` per value, numbered in the order `placingValues` lists them. */
  sql: string;
}

const placingStatements = new Map<string, PlacingStatement>();

/** `insert into "t" ("a", "b") values ($1, $2), ($3, $4)` for `rows` rows, numbering from `first`. */
function insertInto(table: string, columns: readonly string[], rows: number, first: number): string {
  const tuples: string[] = [];
  for (let r = 0; r < rows; r++) {
    const base = first + r * columns.length;
    tuples.push(`(${columns.map((_, c) => `$${base + c}`).join(', ')})`);
  }
  return `insert into "${table}" (${columns.map((c) => `"${c}"`).join(', ')}) values ${tuples.join(', ')}`;
}

/** The text of the placing statement for an order of `lines` lines and `events` events (kept per shape). */
function placingStatement(lines: number, events: number): PlacingStatement {
  const key = `${lines}_${events}`;
  let statement = placingStatements.get(key);
  if (!statement) {
    const order = insertInto('orders', ORDER_COLUMNS, 1, 1);
    const items = insertInto('order_items', ITEM_COLUMNS, lines, 1 + ORDER_COLUMNS.length);
    const firstEvent = 1 + ORDER_COLUMNS.length + lines * ITEM_COLUMNS.length;
    const sql =
      events === 0
        ? `with "placed_order" as (${order}) ${items}`
        : `with "placed_order" as (${order}), "placed_items" as (${items}) ` +
          insertInto(OUTBOX_TABLE, OUTBOX_COLUMNS, events, firstEvent);
    statement = { name: `orders_place_${key}`, sql };
    if (lines <= PREPARED_MAX_LINES) placingStatements.set(key, statement);
  }
  return statement;
}

/** The placing statement's values, in its columns' order. */
function placingValues(s: OrderState, now: Date, outbox: OutboxInsert[]): Knex.Value[] {
  const values: Knex.Value[] = [];
  const order = stateRow(s, now);
  for (const c of ORDER_COLUMNS) values.push(order[c]);
  s.items.forEach((l, position) => {
    const item = itemRow(s.id, l, position);
    for (const c of ITEM_COLUMNS) values.push(item[c]);
  });
  for (const row of outbox) for (const c of OUTBOX_COLUMNS) values.push(row[c]);
  return values;
}

export class OrderRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  /**
   * Inserts the order, its lines and the outbox rows of its events in ONE statement (data-modifying
   * `with`): atomic on its own, one round trip instead of one per table.
   */
  async insert(order: Order, now: Date, outbox: OutboxInsert[] = []): Promise<void> {
    const s = order.state;
    // The statement's text is kept per shape and only its values are bound (knex building it cost
    // about 50 µs an order). Orders of a few lines (most of them) send it as a named statement, so
    // each pooled connection parses and plans it once; larger ones as an unnamed one.
    const shape = placingStatement(s.items.length, outbox.length);
    // The values go to the driver as they are (pg's query config, which knex's options extend):
    // knex given them as raw bindings would scan the text for `?` and renumber them each time.
    const values = placingValues(s, now, outbox);
    await this.db
      .raw(shape.sql)
      .options(s.items.length <= PREPARED_MAX_LINES ? { name: shape.name, values } : { values });
  }

  /** Writes the order's changed state (its lines never change). */
  async update(order: Order, now: Date): Promise<void> {
    const { id: _id, ...row } = stateRow(order.state, now);
    await this.db('orders').where({ id: order.id }).update(row);
  }

  find(id: string): Promise<Order | undefined> {
    return this.load(id, false);
  }

  /** The order, locked until the transaction ends: changes of one order are serialized. */
  findForUpdate(id: string): Promise<Order | undefined> {
    return this.load(id, true);
  }

  async isQueuedFor(orderId: string, login: string): Promise<boolean> {
    return (
      (await this.db('order_approvers').where({ order_id: orderId, approver: login }).first()) !== undefined
    );
  }

  async addApprover(orderId: string, login: string): Promise<void> {
    await this.db('order_approvers').insert({ order_id: orderId, approver: login }).onConflict().ignore();
  }

  /**
   * One page, newest first. Each source of the page is read through an index in list order and
   * stops after `limit` rows, so that a page costs the same on page 1 and page 1,000 of an account
   * with 100k orders: every account of the set on its own (`orders_by_account`, or
   * `orders_by_account_status` with a status), then the newest `limit` of those; a shopper's view
   * from their own orders (`orders_by_buyer`) and the orders of their approval queue. The top
   * `limit` of each source hold the top `limit` of all, so the page is the one a single
   * `WHERE cust_id IN (...) ORDER BY ... LIMIT` would answer (README, "List endpoints at volume").
   */
  async list(filter: OrderFilter): Promise<Order[]> {
    if (filter.custIds.length === 0) return [];
    const rows =
      filter.ownOrQueuedFor !== undefined
        ? await this.ownOrQueuedPage(filter, filter.ownOrQueuedFor)
        : await this.accountsPage(filter);
    if (rows.length === 0) return [];
    const items = (await this.db<ItemRow>('order_items').whereIn(
      'order_id',
      rows.map((r) => r.id),
    )) as ItemRow[];
    const byOrder = new Map<string, ItemRow[]>();
    for (const i of items) byOrder.set(i.order_id, [...(byOrder.get(i.order_id) ?? []), i]);
    return rows.map((r) => toOrder(r, byOrder.get(r.id) ?? []));
  }

  /** The filters of a list other than accounts and viewer, and its order and page size, on `table`. */
  private page(q: Knex.QueryBuilder, table: string, filter: OrderFilter): Knex.QueryBuilder {
    return this.ordered(this.filtered(q, table, filter), table, filter);
  }

  private filtered(q: Knex.QueryBuilder, table: string, filter: OrderFilter): Knex.QueryBuilder {
    if (filter.status) void q.where(`${table}.status`, filter.status);
    if (filter.createdAfter) void q.where(`${table}.submitted_at`, '>=', filter.createdAfter);
    if (filter.after) {
      const { submittedAt, id } = filter.after;
      void q.whereRaw(`(${table}.submitted_at, ${table}.id) < (?, ?)`, [submittedAt, id]);
    }
    return q;
  }

  /** Newest first, one page. */
  private ordered(q: Knex.QueryBuilder, table: string, filter: OrderFilter): Knex.QueryBuilder {
    return q
      .orderBy([
        { column: `${table}.submitted_at`, order: 'desc' },
        { column: `${table}.id`, order: 'desc' },
      ])
      .limit(filter.limit);
  }

  private async accountsPage(filter: OrderFilter): Promise<OrderRow[]> {
    if (filter.custIds.length === 1) {
      return (await this.page(
        this.db('orders').where('orders.cust_id', filter.custIds[0]!),
        'orders',
        filter,
      )) as OrderRow[];
    }
    // `cust_id IN (...)` would read every order of the set and sort them: one account at a time.
    const perAccount = this.page(
      this.db('orders').select('orders.*').whereRaw('orders.cust_id = accounts.cust_id'),
      'orders',
      filter,
    );
    return (await this.ordered(
      this.db.select('p.*').from(
        this.db.raw('unnest(?::text[]) as accounts (cust_id) cross join lateral ? as p', [
          // Once each: an account listed twice would show its orders twice (`IN` would not).
          [...new Set(filter.custIds)],
          perAccount,
        ]),
      ),
      'p',
      filter,
    )) as OrderRow[];
  }

  private async ownOrQueuedPage(filter: OrderFilter, login: string): Promise<OrderRow[]> {
    const own = this.page(
      this.db('orders')
        .select('orders.id')
        .where('orders.ordered_by_login', login)
        .whereIn('orders.cust_id', filter.custIds),
      'orders',
      filter,
    );
    // The queue in list order (`order_approvers_queue`), each entry's order checked for the filters.
    const queued = this.db('order_approvers')
      .join('orders', 'orders.id', 'order_approvers.order_id')
      .select('orders.id')
      .where('order_approvers.approver', login)
      .whereIn('orders.cust_id', filter.custIds)
      .orderBy([
        { column: 'order_approvers.submitted_at', order: 'desc' },
        { column: 'order_approvers.order_id', order: 'desc' },
      ])
      .limit(filter.limit);
    if (filter.status) void queued.where('orders.status', filter.status);
    if (filter.createdAfter) void queued.where('order_approvers.submitted_at', '>=', filter.createdAfter);
    if (filter.after) {
      const { submittedAt, id } = filter.after;
      void queued.whereRaw('(order_approvers.submitted_at, order_approvers.order_id) < (?, ?)', [
        submittedAt,
        id,
      ]);
    }
    return (await this.ordered(
      this.db('orders').whereIn('orders.id', this.db.union([own, queued], true)),
      'orders',
      filter,
    )) as OrderRow[];
  }

  private async load(id: string, lock: boolean): Promise<Order | undefined> {
    const q = this.db<OrderRow>('orders').where({ id }).first();
    const row = (await (lock ? q.forUpdate() : q)) as OrderRow | undefined;
    if (!row) return undefined;
    const items = (await this.db<ItemRow>('order_items').where({ order_id: id })) as ItemRow[];
    return toOrder(row, items);
  }
}
