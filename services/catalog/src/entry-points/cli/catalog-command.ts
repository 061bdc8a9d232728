// Operator commands for the catalog, mounted by the root `ops` CLI:
//   ops catalog categories list|create|update
//   ops catalog items list|show|create|update|import|visibility|availability|stock|discontinue
//   ops catalog price-lists list|show|create|set-price|remove-price|assign|unassign|assignments
// They call the service's internal admin endpoints (CATALOG_URL, INTERNAL_IDENTITY_SECRET).
import fs from 'node:fs';
import path from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { decodeImportFile } from '@ordering/import-files';
import { CATALOG_PORT } from '../../config';
import { CatalogAdminClient } from './catalog-admin-client';

export interface CommandDefaults {
  url?: string;
  secret?: string;
}

let defaults: CommandDefaults = {};

interface Connection {
  url?: string;
  secret?: string;
}

function clientFrom(opts: Connection): CatalogAdminClient {
  const secret = opts.secret ?? process.env.INTERNAL_IDENTITY_SECRET ?? defaults.secret;
  if (!secret) throw new Error('INTERNAL_IDENTITY_SECRET is not set (or pass --secret)');
  return new CatalogAdminClient({
    baseUrl: opts.url ?? process.env.CATALOG_URL ?? defaults.url ?? `http://127.0.0.1:${CATALOG_PORT}`,
    internalIdentitySecret: secret,
  });
}

const print = (value: unknown) => console.log(JSON.stringify(value, null, 2));
const list = (v: string) =>
  v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** `1:1250,10:1100` -> tiers (min_qty:amount in minor units). */
export function parseTiers(value: string): { min_qty: number; amount: number }[] {
  return list(value).map((part) => {
    const m = /^(\d+):(\d+)$/.exec(part);
    if (!m) throw new InvalidArgumentError('expected tiers like 1:1250,10:1100 (min_qty:amount)');
    return { min_qty: Number(m[1]), amount: Number(m[2]) };
  });
}

function int(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('expected a whole number');
  return Number(value);
}

function command(name: string, description: string): Command {
  return new Command(name)
    .description(description)
    .addOption(
      new Option('--url <url>', `catalog service URL (default $CATALOG_URL or 127.0.0.1:${CATALOG_PORT})`),
    )
    .addOption(
      new Option('--secret <secret>', 'internal identity secret (default $INTERNAL_IDENTITY_SECRET)'),
    );
}

interface ItemOptions extends Connection {
  name?: string;
  description?: string;
  category?: string;
  currency?: string;
  price?: { min_qty: number; amount: number }[];
  leadTime?: number;
  flags?: string;
  images?: string;
  stock?: string;
  lifecycle?: string;
}

function itemFields(o: ItemOptions): Record<string, unknown> {
  return {
    ...(o.name !== undefined ? { name: o.name } : {}),
    ...(o.description !== undefined ? { description: o.description } : {}),
    ...(o.category !== undefined ? { category_id: o.category } : {}),
    ...(o.currency !== undefined ? { currency: o.currency } : {}),
    ...(o.price !== undefined ? { pricing: o.price } : {}),
    ...(o.leadTime !== undefined ? { lead_time_days: o.leadTime } : {}),
    ...(o.flags !== undefined ? { flags: list(o.flags) } : {}),
    ...(o.images !== undefined ? { images: list(o.images) } : {}),
    ...(o.stock !== undefined ? { stock_state: o.stock } : {}),
    ...(o.lifecycle !== undefined ? { lifecycle: o.lifecycle } : {}),
  };
}

function withItemOptions(cmd: Command): Command {
  return cmd
    .option('--name <name>', 'item name')
    .option('--description <text>', 'description')
    .option('--category <id>', 'category id')
    .option('--currency <code>', 'currency of the base tiers (ISO 4217)')
    .option('--price <tiers>', 'base tiers min_qty:amount in minor units, e.g. 1:1250,10:1100', parseTiers)
    .option('--lead-time <days>', 'lead time in days', int)
    .option('--flags <list>', 'comma-separated flags')
    .option('--images <urls>', 'comma-separated image URLs')
    .option('--stock <state>', 'in_stock | low_stock | out_of_stock')
    .option('--lifecycle <state>', 'active | discontinued');
}

function categoriesCommand(): Command {
  const cmd = new Command('categories').description('The category tree');
  cmd.addCommand(
    command('list', 'List every category').action(async (o: Connection) =>
      print(await clientFrom(o).categories()),
    ),
  );
  cmd.addCommand(
    command('create', 'Create a category')
      .argument('<id>', 'category id')
      .requiredOption('--name <name>', 'name')
      .option('--parent <id>', 'parent category id')
      .action(async (id: string, o: Connection & { name: string; parent?: string }) =>
        print(
          await clientFrom(o).createCategory({
            id,
            name: o.name,
            ...(o.parent ? { parent_id: o.parent } : {}),
          }),
        ),
      ),
  );
  cmd.addCommand(
    command('update', 'Rename or move a category (--parent none: to the top)')
      .argument('<id>', 'category id')
      .option('--name <name>', 'name')
      .option('--parent <id>', 'parent category id, or none')
      .action(async (id: string, o: Connection & { name?: string; parent?: string }) =>
        print(
          await clientFrom(o).updateCategory(id, {
            ...(o.name !== undefined ? { name: o.name } : {}),
            ...(o.parent !== undefined ? { parent_id: o.parent === 'none' ? null : o.parent } : {}),
          }),
        ),
      ),
  );
  return cmd;
}

function itemsCommand(): Command {
  const cmd = new Command('items').description('Catalog items');
  cmd.addCommand(
    command('list', 'List items by item code')
      .option('--limit <n>', 'page size (1-100)', int)
      .option('--starting-after <cursor>', 'next_cursor of the previous page')
      .action(async (o: Connection & { limit?: number; startingAfter?: string }) => {
        const q = new URLSearchParams();
        if (o.limit !== undefined) q.set('limit', String(o.limit));
        if (o.startingAfter) q.set('starting_after', o.startingAfter);
        print(await clientFrom(o).listItems(q.size ? `?${q}` : ''));
      }),
  );
  cmd.addCommand(
    command('show', 'Show an item with its rules')
      .argument('<item>', 'item id or item code')
      .action(async (item: string, o: Connection) => print(await clientFrom(o).getItem(item))),
  );
  cmd.addCommand(
    withItemOptions(command('create', 'Create an item').argument('<item_code>', 'item code (SKU)')).action(
      async (itemCode: string, o: ItemOptions) =>
        print(await clientFrom(o).createItem({ item_code: itemCode, ...itemFields(o) })),
    ),
  );
  cmd.addCommand(
    withItemOptions(command('update', 'Change an item').argument('<item>', 'item id or item code')).action(
      async (item: string, o: ItemOptions) => print(await clientFrom(o).updateItem(item, itemFields(o))),
    ),
  );
  cmd.addCommand(
    command('stock', 'Set the stock state')
      .argument('<item>', 'item id or item code')
      .argument('<state>', 'in_stock | low_stock | out_of_stock')
      .action(async (item: string, state: string, o: Connection) =>
        print(await clientFrom(o).updateItem(item, { stock_state: state })),
      ),
  );
  cmd.addCommand(
    command('discontinue', 'Discontinue an item (no longer available to anyone)')
      .argument('<item>', 'item id or item code')
      .action(async (item: string, o: Connection) =>
        print(await clientFrom(o).updateItem(item, { lifecycle: 'discontinued' })),
      ),
  );
  cmd.addCommand(
    command('visibility', 'Restrict an item to accounts (and their descendants); --everyone lifts it')
      .argument('<item>', 'item id or item code')
      .option('--accounts <cust_ids>', 'comma-separated accounts that may see it')
      .option('--everyone', 'every account sees it')
      .action(async (item: string, o: Connection & { accounts?: string; everyone?: boolean }) => {
        if (!o.everyone && !o.accounts) throw new InvalidArgumentError('give --accounts or --everyone');
        print(await clientFrom(o).setVisibility(item, o.everyone ? [] : list(o.accounts!)));
      }),
  );
  cmd.addCommand(
    command('availability', "Set an account's own availability of an item (inherited below it)")
      .argument('<item>', 'item id or item code')
      .argument('<cust_id>', 'account')
      .argument('<value>', 'available | unavailable | inherit')
      .action(async (item: string, custId: string, value: string, o: Connection) => {
        const map: Record<string, boolean | null> = { available: true, unavailable: false, inherit: null };
        if (!(value in map)) throw new InvalidArgumentError('expected available, unavailable or inherit');
        print(await clientFrom(o).setAvailability(item, custId, map[value]!));
      }),
  );
  cmd.addCommand(
    command(
      'import',
      'Import items from a CSV or JSON file (all or nothing; existing item codes are updated)',
    )
      .argument('<file>', 'a .csv, .json (array) or .jsonl file')
      .option('--format <format>', 'csv | json (default: from the file name)')
      .action(async (file: string, o: Connection & { format?: string }) => {
        const format = o.format ?? (path.extname(file).toLowerCase() === '.csv' ? 'csv' : 'json');
        if (format !== 'csv' && format !== 'json')
          throw new InvalidArgumentError('format must be csv or json');
        const started = Date.now();
        const result = await clientFrom(o).importItems(format, decodeImportFile(fs.readFileSync(file)));
        print({ ...result, seconds: (Date.now() - started) / 1000 });
      }),
  );
  return cmd;
}

function priceListsCommand(): Command {
  const cmd = new Command('price-lists').description('Price lists and their assignment to accounts');
  cmd.addCommand(
    command('list', 'List price lists').action(async (o: Connection) =>
      print(await clientFrom(o).priceLists()),
    ),
  );
  cmd.addCommand(
    command('show', 'Show a price list with its items and accounts')
      .argument('<id>', 'price list id')
      .action(async (id: string, o: Connection) => print(await clientFrom(o).getPriceList(id))),
  );
  cmd.addCommand(
    command('create', 'Create a price list')
      .argument('<id>', 'price list id')
      .requiredOption('--name <name>', 'name')
      .requiredOption('--currency <code>', 'ISO 4217 currency of its prices')
      .action(async (id: string, o: Connection & { name: string; currency: string }) =>
        print(await clientFrom(o).createPriceList({ id, name: o.name, currency: o.currency })),
      ),
  );
  cmd.addCommand(
    command('set-price', "Set the list's own tiers for an item")
      .argument('<id>', 'price list id')
      .argument('<item>', 'item id or item code')
      .argument('<tiers>', 'min_qty:amount in minor units, e.g. 1:1100,50:990', parseTiers)
      .action(async (id: string, item: string, tiers: { min_qty: number; amount: number }[], o: Connection) =>
        print(await clientFrom(o).setPriceListEntry(id, item, tiers)),
      ),
  );
  cmd.addCommand(
    command('remove-price', 'Remove the item from the list (its base tiers apply again)')
      .argument('<id>', 'price list id')
      .argument('<item>', 'item id or item code')
      .action(async (id: string, item: string, o: Connection) =>
        print(await clientFrom(o).setPriceListEntry(id, item, null)),
      ),
  );
  cmd.addCommand(
    command('assign', 'Assign a price list to an account (and so its descendants)')
      .argument('<cust_id>', 'account')
      .argument('<id>', 'price list id')
      .action(async (custId: string, id: string, o: Connection) =>
        print(await clientFrom(o).assign(custId, id)),
      ),
  );
  cmd.addCommand(
    command('unassign', "Remove an account's price list")
      .argument('<cust_id>', 'account')
      .action(async (custId: string, o: Connection) => print(await clientFrom(o).assign(custId, null))),
  );
  cmd.addCommand(
    command('assignments', 'List which account has which price list').action(async (o: Connection) =>
      print(await clientFrom(o).assignments()),
    ),
  );
  return cmd;
}

/** `ops catalog ...`; `commandDefaults` are the local stack's URL and secret. */
export function catalogCommand(commandDefaults: CommandDefaults = {}): Command {
  defaults = commandDefaults;
  return new Command('catalog')
    .description('Catalog items, categories, price lists, visibility and stock (catalog service)')
    .addCommand(categoriesCommand())
    .addCommand(itemsCommand())
    .addCommand(priceListsCommand());
}
