// Reading an onboarding file: JSON (an array of accounts, or one account per line) or CSV (a header
// row, then one account per row). Every record keeps the line it starts on, for error messages.

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
  return format === 'csv' ? parseCsvAccounts(content) : parseJsonAccounts(content);
}

// JSON ---------------------------------------------------------------------------------------

function lineAt(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** Start offsets of the top-level elements of a JSON array (strings and nesting respected). */
function arrayElementStarts(text: string): number[] {
  const starts: number[] = [];
  let depth = 0;
  let inString = false;
  let expectValue = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (/\s/.test(c)) continue;
    if (depth === 1 && expectValue && c !== ']') {
      starts.push(i);
      expectValue = false;
    }
    if (c === '"') inString = true;
    else if (c === '[' || c === '{') {
      depth++;
      if (depth === 1) expectValue = true;
    } else if (c === ']' || c === '}') depth--;
    else if (c === ',' && depth === 1) expectValue = true;
  }
  return starts;
}

function parseJsonAccounts(content: string): ImportRecord[] {
  const trimmed = content.trimStart();
  if (trimmed.startsWith('[')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(content);
    } catch (err) {
      throw new ImportParseError([{ line: 1, message: `not valid JSON: ${(err as Error).message}` }]);
    }
    const starts = arrayElementStarts(content);
    return (parsed as unknown[]).map((value, i) => ({ line: lineAt(content, starts[i] ?? 0), value }));
  }
  // JSON Lines: one account object per non-empty line.
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

// CSV ----------------------------------------------------------------------------------------

/** RFC 4180 rows with the line each starts on (quoted fields may hold commas, quotes, newlines). */
export function parseCsv(content: string): { line: number; cells: string[] }[] {
  const rows: { line: number; cells: string[] }[] = [];
  let cells: string[] = [];
  let cell = '';
  let quoted = false;
  let line = 1;
  let rowLine = 1;
  const endRow = () => {
    cells.push(cell);
    if (!(cells.length === 1 && cells[0] === '')) rows.push({ line: rowLine, cells });
    cells = [];
    cell = '';
  };
  for (let i = 0; i < content.length; i++) {
    const c = content[i]!;
    if (quoted) {
      if (c === '"' && content[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else {
        if (c === '\n') line++;
        cell += c;
      }
      continue;
    }
    if (c === '"') quoted = true;
    else if (c === ',') {
      cells.push(cell);
      cell = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && content[i + 1] === '\n') i++;
      endRow();
      line++;
      rowLine = line;
    } else cell += c;
  }
  if (cell !== '' || cells.length > 0) endRow();
  return rows;
}

const ACCOUNT_COLUMNS = [
  'cust_id',
  'name',
  'parent_cust_id',
  'currency',
  'approval_required_over',
  'billing_terms',
  'jit_provisioning',
  'email_domains',
];
const ADDRESS_COLUMNS = [
  'type',
  'label',
  'attention',
  'street_1',
  'street_2',
  'city',
  'region',
  'postal_code',
  'country',
  'default',
];
const KNOWN_COLUMNS = new Set([...ACCOUNT_COLUMNS, ...ADDRESS_COLUMNS.map((c) => `address_${c}`)]);

function csvValue(column: string, raw: string): unknown {
  const v = raw.trim();
  if (column === 'approval_required_over') return /^\d+$/.test(v) ? Number(v) : v;
  if (column === 'jit_provisioning' || column === 'default') {
    return v === 'true' ? true : v === 'false' ? false : v;
  }
  if (column === 'email_domains') return v.split(/[;\s]+/).filter(Boolean);
  return v;
}

/** CSV columns: the account fields, plus optionally one address per row as `address_<field>`. */
function parseCsvAccounts(content: string): ImportRecord[] {
  const [header, ...rows] = parseCsv(content.replace(/^\uFEFF/, ''));
  if (!header) throw new ImportParseError([{ line: 1, message: 'the file is empty' }]);
  const columns = header.cells.map((c) => c.trim());
  const unknown = columns.filter((c) => !KNOWN_COLUMNS.has(c));
  if (unknown.length > 0) {
    throw new ImportParseError([{ line: header.line, message: `unknown column(s): ${unknown.join(', ')}` }]);
  }
  return rows.map(({ line, cells }) => {
    const account: Record<string, unknown> = {};
    const address: Record<string, unknown> = {};
    columns.forEach((column, i) => {
      const raw = cells[i] ?? '';
      if (raw.trim() === '') return;
      if (column.startsWith('address_')) {
        const field = column.slice('address_'.length);
        address[field] = csvValue(field, raw);
      } else account[column] = csvValue(column, raw);
    });
    if (Object.keys(address).length > 0) account.addresses = [address];
    return { line, value: account };
  });
}
