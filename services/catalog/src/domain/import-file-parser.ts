// Reading an item import file into records, each with the line it starts on (for error reports):
// CSV (a header row, then one item per row) or JSON (an array of items, or one item per line). The
// files are read by @ordering/import-files; the item's columns are this service's.
import { type ImportFormat, type ImportRecord, readCsvTable, readJsonRecords } from '@ordering/import-files';

export function parseImportFile(format: ImportFormat, content: string): ImportRecord[] {
  return format === 'csv' ? parseCsvItems(content) : readJsonRecords(content);
}

// CSV ----------------------------------------------------------------------------------------

export const CSV_COLUMNS = [
  'item_code',
  'name',
  'description',
  'category_id',
  'flags',
  'images',
  'currency',
  'pricing',
  'lead_time_days',
  'lifecycle',
  'stock_state',
] as const;

/** `1:1250;10:1100` -> [{min_qty: 1, amount: 1250}, {min_qty: 10, amount: 1100}]; else the text. */
function csvTiers(raw: string): unknown {
  const parts = raw.split(';').map((p) => p.trim());
  const tiers = parts.map((p) => /^(\d{1,9}):(\d{1,15})$/.exec(p));
  if (tiers.some((t) => t === null)) return raw;
  return tiers.map((t) => ({ min_qty: Number(t![1]), amount: Number(t![2]) }));
}

function csvValue(column: string, raw: string): unknown {
  const v = raw.trim();
  if (column === 'flags' || column === 'images')
    return v
      .split(';')
      .map((s) => s.trim())
      .filter(Boolean);
  if (column === 'pricing') return csvTiers(v);
  if (column === 'lead_time_days') return /^\d{1,6}$/.test(v) ? Number(v) : v;
  return v;
}

function parseCsvItems(content: string): ImportRecord[] {
  const { columns, rows } = readCsvTable(content, CSV_COLUMNS);
  return rows.map(({ line, cells }) => {
    const item: Record<string, unknown> = {};
    columns.forEach((column, i) => {
      const raw = cells[i] ?? '';
      if (raw.trim() !== '') item[column] = csvValue(column, raw);
    });
    // A cell past the header's columns is reported as an unknown field of that record.
    if (cells.length > columns.length) item[`column_${columns.length + 1}`] = cells[columns.length];
    return { line, value: item };
  });
}
