// Reading an item import file into records, each with the line it starts on (for error reports):
// CSV (a header row, then one item per row; parsed by csv-parse, RFC 4180) or JSON (an array of
// items, or one item per line). One pass over the text, whatever its size.
import { parse } from 'csv-parse/sync';

export type ImportFormat = 'json' | 'csv';

export interface ImportRecord {
  line: number;
  value: unknown;
}

export interface ImportProblem {
  line: number;
  param?: string;
  message: string;
}

export class ImportParseError extends Error {
  constructor(readonly problems: ImportProblem[]) {
    super(problems.map((p) => `line ${p.line}: ${p.message}`).join('\n'));
  }
}

export function parseImportFile(format: ImportFormat, content: string): ImportRecord[] {
  return format === 'csv' ? parseCsvItems(content.replace(/^\uFEFF/, '')) : parseJsonItems(content);
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
  let rows: { record: string[]; info: { lines: number } }[];
  try {
    rows = parse(content, {
      info: true,
      skip_empty_lines: true,
      relax_column_count: true,
    }) as unknown as typeof rows;
  } catch (err) {
    const line = (err as { lines?: number }).lines ?? 1;
    throw new ImportParseError([{ line, message: `not valid CSV: ${(err as Error).message}` }]);
  }
  const [header, ...records] = rows;
  if (!header) throw new ImportParseError([{ line: 1, message: 'the file is empty' }]);
  const columns = header.record.map((c) => c.trim());
  const unknown = columns.filter((c) => !(CSV_COLUMNS as readonly string[]).includes(c));
  if (unknown.length > 0) {
    throw new ImportParseError([{ line: 1, message: `unknown column(s): ${unknown.join(', ')}` }]);
  }
  return records.map(({ record, info }) => {
    // info.lines is where the record ends; quoted newlines inside it moved it down.
    const inner = record.reduce((n, cell) => n + (cell.match(/\n/g)?.length ?? 0), 0);
    const item: Record<string, unknown> = {};
    columns.forEach((column, i) => {
      const raw = record[i] ?? '';
      if (raw.trim() !== '') item[column] = csvValue(column, raw);
    });
    if (record.length > columns.length) item[`column_${columns.length + 1}`] = record[columns.length];
    return { line: info.lines - inner, value: item };
  });
}

// JSON ---------------------------------------------------------------------------------------

/** Lines on which the top-level elements of a JSON array start (one pass; strings respected). */
function arrayElementLines(text: string): number[] {
  const lines: number[] = [];
  let line = 1;
  let depth = 0;
  let inString = false;
  let expectValue = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 10) line++;
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
      continue;
    }
    if (c === 32 || c === 9 || c === 10 || c === 13) continue;
    if (depth === 1 && expectValue && c !== 93) {
      lines.push(line);
      expectValue = false;
    }
    if (c === 34) inString = true;
    else if (c === 91 || c === 123) {
      depth++;
      if (depth === 1) expectValue = true;
    } else if (c === 93 || c === 125) depth--;
    else if (c === 44 && depth === 1) expectValue = true;
  }
  return lines;
}

function parseJsonItems(content: string): ImportRecord[] {
  if (content.trimStart().startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(content);
    } catch (err) {
      throw new ImportParseError([{ line: 1, message: `not valid JSON: ${(err as Error).message}` }]);
    }
    const lines = arrayElementLines(content);
    return (parsed as unknown[]).map((value, i) => ({ line: lines[i] ?? 1, value }));
  }
  // JSON Lines: one item object per non-empty line.
  const records: ImportRecord[] = [];
  const problems: ImportProblem[] = [];
  content.split(/\r?\n/).forEach((text, i) => {
    if (text.trim() === '') return;
    try {
      records.push({ line: i + 1, value: JSON.parse(text) });
    } catch (err) {
      problems.push({ line: i + 1, message: `not valid JSON: ${(err as Error).message}` });
    }
  });
  if (problems.length > 0) throw new ImportParseError(problems);
  return records;
}
