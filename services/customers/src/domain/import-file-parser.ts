// Reading an onboarding file: JSON (an array of accounts, or one account per line) or CSV (a header
// row, then one account per row). Every record keeps the line it starts on, for error messages; the
// files are read by @ordering/import-files, the account's columns are this service's.
import { type ImportFormat, type ImportRecord, readCsvTable, readJsonRecords } from '@ordering/import-files';

export function parseImportFile(format: ImportFormat, content: string): ImportRecord[] {
  return format === 'csv' ? parseCsvAccounts(content) : readJsonRecords(content);
}

// CSV: the account's columns ------------------------------------------------------------------

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
  const { columns, rows } = readCsvTable(content, KNOWN_COLUMNS);
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
