// CSV (RFC 4180, by csv-parse): rows with the line each starts on; quoted cells may hold commas,
// doubled quotes and newlines; empty lines are skipped; a byte order mark is dropped.
import { parse } from 'csv-parse/sync';
import { ImportParseError } from './import-problems';

export interface CsvRow {
  /** The line the row starts on (a quoted newline inside it does not move it). */
  line: number;
  cells: string[];
}

export function readCsvRows(content: string): CsvRow[] {
  let rows: { record: string[]; info: { lines: number } }[];
  try {
    rows = parse(content, {
      bom: true,
      // Whatever line ends the file mixes (a file edited on two systems).
      record_delimiter: ['\r\n', '\n', '\r'],
      info: true,
      skip_empty_lines: true,
      relax_column_count: true,
    }) as unknown as typeof rows;
  } catch (err) {
    const line = (err as { lines?: number }).lines ?? 1;
    throw new ImportParseError([{ line, message: `not valid CSV: ${(err as Error).message}` }]);
  }
  return rows.map(({ record, info }) => {
    // info.lines is the line the record ends on; newlines inside its quoted cells moved it down.
    let inner = 0;
    for (const cell of record)
      for (let i = cell.indexOf('\n'); i !== -1; i = cell.indexOf('\n', i + 1)) inner++;
    return { line: info.lines - inner, cells: record };
  });
}

/** A CSV file of records: its header (trimmed column names, each one of `known`) and its rows. */
export interface CsvTable {
  columns: string[];
  rows: CsvRow[];
}

/**
 * Reads the header and rows; an empty file, a column not in `known` or a column named twice refuses
 * the file.
 */
export function readCsvTable(content: string, known: ReadonlySet<string> | readonly string[]): CsvTable {
  const [header, ...rows] = readCsvRows(content);
  if (!header) throw new ImportParseError([{ line: 1, message: 'the file is empty' }]);
  const knownSet = known instanceof Set ? known : new Set(known as readonly string[]);
  const columns = header.cells.map((c) => c.trim());
  const unknown = columns.filter((c) => !knownSet.has(c));
  if (unknown.length > 0) {
    throw new ImportParseError([{ line: header.line, message: `unknown column(s): ${unknown.join(', ')}` }]);
  }
  // A column named twice would have one of its two cells per row silently win over the other.
  const twice = [...new Set(columns.filter((c, i) => columns.indexOf(c) !== i))];
  if (twice.length > 0) {
    throw new ImportParseError([
      { line: header.line, message: `column(s) named twice: ${twice.join(', ')}` },
    ]);
  }
  return { columns, rows };
}
