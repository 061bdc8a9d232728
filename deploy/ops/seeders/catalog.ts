// The demo catalog: 44 items in USD (the demo accounts' currency) over five categories (office
// supplies with three sub-categories), tiered prices on several items, one discontinued item, one out
// of stock, one restricted to ACME-WEST, and ACME's contract price list (inherited by ACME-WEST) that
// prices some items below what GLOBEX pays. Idempotent: the import updates items by item code, and
// categories, lists and assignments that exist are kept.
import { CatalogAdminClient, CatalogAdminError } from '@ordering/catalog-service';
import type { SeedContext } from '../seed-demo-data';

const CATEGORIES = [
  { id: 'office', name: 'Office supplies', parent_id: null },
  { id: 'writing', name: 'Writing instruments', parent_id: 'office' },
  { id: 'paper', name: 'Paper and notebooks', parent_id: 'office' },
  { id: 'filing', name: 'Filing and stapling', parent_id: 'office' },
  { id: 'furniture', name: 'Furniture', parent_id: null },
  { id: 'technology', name: 'Technology', parent_id: null },
  { id: 'breakroom', name: 'Breakroom', parent_id: null },
];

type Row = [code: string, name: string, category: string, tiers: string, description: string, extra?: string];

// [item_code, name, category, tiers (min_qty:amount in cents), description, lifecycle/stock]
const ITEMS: Row[] = [
  [
    'PEN-BLU-12',
    'Ballpoint pens, blue (12)',
    'writing',
    '1:899;10:799;50:699',
    'Smooth ballpoint pens with blue ink, box of twelve',
  ],
  [
    'PEN-BLK-12',
    'Ballpoint pens, black (12)',
    'writing',
    '1:899;10:799;50:699',
    'Smooth ballpoint pens with black ink, box of twelve',
  ],
  ['PEN-GEL-06', 'Gel pens, assorted (6)', 'writing', '1:1099', 'Quick-drying gel ink in six colours'],
  [
    'MRK-HL-04',
    'Highlighters (4)',
    'writing',
    '1:549;20:499',
    'Chisel tip highlighters: yellow, green, pink, blue',
  ],
  ['MRK-WB-04', 'Whiteboard markers (4)', 'writing', '1:799', 'Low-odour dry-erase markers'],
  ['PCL-HB-12', 'Pencils HB (12)', 'writing', '1:399', 'Graphite pencils with erasers'],
  [
    'FTN-PEN-01',
    'Fountain pen',
    'writing',
    '1:4500',
    'Steel nib fountain pen for signatures',
    'discontinued',
  ],
  [
    'PAP-A4-500',
    'Copy paper A4, 500 sheets',
    'paper',
    '1:599;10:549;100:499',
    'Bright white 80 g/m2 multipurpose paper',
  ],
  [
    'PAP-LTR-500',
    'Copy paper Letter, 500 sheets',
    'paper',
    '1:649;10:589;100:529',
    'Bright white 20 lb multipurpose paper',
  ],
  ['PAP-A4-RCY', 'Recycled paper A4, 500 sheets', 'paper', '1:699;10:649', '100% recycled office paper'],
  ['NTB-A5-DOT', 'Notebook A5, dotted', 'paper', '1:1299', 'Hardcover dotted notebook with 192 pages'],
  ['NTB-LGL-PAD', 'Legal pads (12)', 'paper', '1:1899', 'Yellow ruled legal pads'],
  ['STK-NOTE-12', 'Sticky notes (12 pads)', 'paper', '1:1099;10:949', 'Self-adhesive notes, 76 x 76 mm'],
  ['ENV-C4-250', 'Envelopes C4 (250)', 'paper', '1:2499', 'Self-seal envelopes for A4 documents'],
  [
    'STP-DESK',
    'Desk stapler',
    'filing',
    '1:1250;10:1100;50:990',
    'Heavy-duty desk stapler for up to 25 sheets',
  ],
  ['STP-LONG', 'Long reach stapler', 'filing', '1:2400', 'Staples booklets in the middle'],
  ['STP-ELEC', 'Electric stapler', 'filing', '1:5900', 'Automatic stapler for high volume', 'out_of_stock'],
  ['STA-26-5K', 'Staples 26/6 (5,000)', 'filing', '1:299;20:249', 'Standard staples for desk staplers'],
  ['STR-REM', 'Staple remover', 'filing', '1:350', 'Removes staples without tearing paper'],
  ['BND-A4-10', 'Ring binders A4 (10)', 'filing', '1:2999', 'Two-ring binders with clear pockets'],
  ['FLD-SUS-25', 'Suspension files (25)', 'filing', '1:2199', 'Hanging folders for filing cabinets'],
  ['PUN-2H', 'Two-hole punch', 'filing', '1:1499', 'Punches up to 30 sheets'],
  [
    'CHR-ERG-01',
    'Ergonomic office chair',
    'furniture',
    '1:24900;5:22900',
    'Adjustable lumbar support and armrests',
  ],
  ['CHR-VIS-02', 'Visitor chair', 'furniture', '1:8900', 'Stackable visitor chair'],
  ['DSK-STD-140', 'Standing desk 140 cm', 'furniture', '1:45900', 'Electric height-adjustable desk'],
  ['DSK-FIX-120', 'Desk 120 cm', 'furniture', '1:19900', 'Fixed height desk with cable tray'],
  ['CAB-3DR', 'Filing cabinet, 3 drawers', 'furniture', '1:17900', 'Lockable steel filing cabinet'],
  ['LMP-LED', 'LED desk lamp', 'furniture', '1:3900', 'Dimmable lamp with USB charging port'],
  ['MON-27-4K', 'Monitor 27" 4K', 'technology', '1:34900;10:32900', 'IPS monitor with USB-C power delivery'],
  ['MON-24-FHD', 'Monitor 24" Full HD', 'technology', '1:15900', 'Anti-glare office monitor'],
  ['KBD-WL-US', 'Wireless keyboard', 'technology', '1:4900', 'Quiet keys, US layout'],
  ['MSE-WL-01', 'Wireless mouse', 'technology', '1:2900;20:2500', 'Ergonomic mouse with silent clicks'],
  ['HDS-USB-01', 'USB headset', 'technology', '1:5900', 'Noise-cancelling headset for calls'],
  ['DCK-USBC', 'USB-C docking station', 'technology', '1:12900', 'Two displays, Ethernet, 100 W charging'],
  ['CAM-HD-01', 'HD webcam', 'technology', '1:6900', '1080p webcam with privacy shutter'],
  ['SHR-CC-10', 'Cross-cut shredder', 'technology', '1:25900', 'Secure shredder for confidential documents'],
  ['CFE-BEAN-1K', 'Coffee beans 1 kg', 'breakroom', '1:1999;10:1799', 'Medium roast whole beans'],
  ['TEA-GRN-100', 'Green tea (100 bags)', 'breakroom', '1:899', 'Sencha green tea'],
  ['CUP-PAP-50', 'Paper cups (50)', 'breakroom', '1:499', 'Compostable hot drink cups'],
  ['WTR-BTL-24', 'Still water (24 bottles)', 'breakroom', '1:1299', 'Half-litre bottles'],
  ['SNK-MIX-30', 'Snack box (30)', 'breakroom', '1:2999', 'Assorted snack bars'],
  ['TWL-PAP-12', 'Paper towels (12 rolls)', 'breakroom', '1:2199', 'Two-ply kitchen towels'],
  ['SOP-HND-05', 'Hand soap 5 l', 'breakroom', '1:1599', 'Refill for soap dispensers'],
  ['CLN-SPR-06', 'Surface cleaner (6)', 'breakroom', '1:1899', 'Multi-surface spray cleaner'],
];

/** Only ACME-WEST may see (and order) it. */
const RESTRICTED = { item: 'SHR-CC-10', to: ['ACME-WEST'] };

/** ACME's contract (ACME-WEST inherits it): lower prices than the base tiers GLOBEX pays. */
const ACME_CONTRACT: Record<string, string> = {
  'PAP-A4-500': '1:529;10:489;100:449',
  'PEN-BLU-12': '1:749;50:599',
  'STP-DESK': '1:999;10:899',
  'MON-27-4K': '1:31900',
  'CFE-BEAN-1K': '1:1699',
};

const tiers = (s: string) =>
  s.split(';').map((t) => {
    const [min_qty, amount] = t.split(':').map(Number);
    return { min_qty: min_qty!, amount: amount! };
  });

function csv(): string {
  const quote = (v: string) => `"${v.replace(/"/g, '""')}"`;
  const rows = ITEMS.map(([code, name, category, pricing, description, extra]) =>
    [
      code,
      quote(name),
      quote(description),
      category,
      'USD',
      pricing,
      extra === 'discontinued' ? 'discontinued' : 'active',
      extra === 'out_of_stock' ? 'out_of_stock' : 'in_stock',
      String(category === 'furniture' ? 10 : category === 'technology' ? 5 : 2),
    ].join(','),
  );
  return [
    'item_code,name,description,category_id,currency,pricing,lifecycle,stock_state,lead_time_days',
    ...rows,
  ].join('\n');
}

const exists = (err: unknown) => err instanceof CatalogAdminError && err.status === 409;

export async function seedCatalog(ctx: SeedContext): Promise<void> {
  const proc = ctx.procs.find((p) => p.name === 'catalog');
  if (!proc) return;
  const client = new CatalogAdminClient({
    baseUrl: `http://127.0.0.1:${proc.port}`,
    internalIdentitySecret: ctx.settings.internalIdentitySecret,
    operator: 'seeder',
  });
  for (const category of CATEGORIES) {
    await client.createCategory(category).catch((err: unknown) => {
      if (!exists(err)) throw err;
    });
  }
  await client.importItems('csv', csv());
  await client.setVisibility(RESTRICTED.item, RESTRICTED.to);
  await client
    .createPriceList({ id: 'ACME-CONTRACT', name: 'Acme contract prices', currency: 'USD' })
    .catch((err: unknown) => {
      if (!exists(err)) throw err;
    });
  for (const [item, pricing] of Object.entries(ACME_CONTRACT)) {
    await client.setPriceListEntry('ACME-CONTRACT', item, tiers(pricing));
  }
  await client.assign('ACME', 'ACME-CONTRACT');
}
