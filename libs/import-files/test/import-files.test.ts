// Reading import files: CSV quoting and the line each row starts on, the header's columns, JSON
// arrays (each element's line, malformed elements on their own lines) and JSON Lines.
import { decodeImportFile, ImportParseError, readCsvRows, readCsvTable, readJsonRecords } from '../src';

function problemsOf(read: () => unknown): { line: number; message: string }[] {
  try {
    read();
  } catch (err) {
    expect(err).toBeInstanceOf(ImportParseError);
    return (err as ImportParseError).problems;
  }
  throw new Error('accepted');
}

it('parses RFC 4180 CSV: quoted commas, doubled quotes, newlines inside quotes, CRLF; rows keep their first line', () => {
  const rows = readCsvRows('\uFEFFa,b\r\n"x, y","say ""hi"""\r\n"multi\nline",z\n\nlast,row');
  expect(rows).toEqual([
    { line: 1, cells: ['a', 'b'] },
    { line: 2, cells: ['x, y', 'say "hi"'] },
    { line: 3, cells: ['multi\nline', 'z'] },
    { line: 6, cells: ['last', 'row'] },
  ]);
});

it('refuses a header that names a column twice (one cell of each row would silently win)', () => {
  expect(problemsOf(() => readCsvTable('\na,b, a\n1,2,3', ['a', 'b']))).toEqual([
    { line: 2, message: 'column(s) named twice: a' },
  ]);
});

it('refuses malformed CSV with its line, an empty file, and unknown columns', () => {
  expect(problemsOf(() => readCsvRows('a,b\nok,row\n"open,quote\n'))).toEqual([
    { line: expect.any(Number), message: expect.stringMatching(/^not valid CSV/) },
  ]);
  expect(problemsOf(() => readCsvTable('', ['a']))).toEqual([{ line: 1, message: 'the file is empty' }]);
  expect(problemsOf(() => readCsvTable('\n a ,colour\n1,2', ['a']))).toEqual([
    { line: 2, message: 'unknown column(s): colour' },
  ]);
  expect(readCsvTable(' a , b \n1,2', new Set(['a', 'b']))).toEqual({
    columns: ['a', 'b'],
    rows: [{ line: 2, cells: ['1', '2'] }],
  });
});

it('gives each element of a pretty-printed JSON array the line it starts on', () => {
  const text =
    '\n[\n  {"cust_id": "A", "name": "[not, a] {bracket} \\"quoted\\""},\n\n  {\n    "cust_id": "B"\n  },\n  "x", 3, [1, [2]]\n]\n';
  expect(readJsonRecords(text)).toEqual([
    { line: 3, value: { cust_id: 'A', name: '[not, a] {bracket} "quoted"' } },
    { line: 5, value: { cust_id: 'B' } },
    { line: 8, value: 'x' },
    { line: 8, value: 3 },
    { line: 8, value: [1, [2]] },
  ]);
  expect(readJsonRecords('[]')).toEqual([]);
});

it('reports every malformed element of a JSON array on its line, and a broken array', () => {
  expect(problemsOf(() => readJsonRecords('[\n {"a": 1},\n {oops},\n {"b": 2},\n {"c": }\n]'))).toEqual([
    { line: 3, message: expect.stringMatching(/^not valid JSON/) },
    { line: 5, message: expect.stringMatching(/^not valid JSON/) },
  ]);
  expect(problemsOf(() => readJsonRecords('[\n {"a": 1},\n]'))).toEqual([
    { line: 3, message: 'not valid JSON: an element is missing' },
  ]);
  expect(problemsOf(() => readJsonRecords('[\n {"a": 1}\n'))).toEqual([
    { line: 3, message: 'not valid JSON: the array is not closed' },
  ]);
  expect(problemsOf(() => readJsonRecords('[{"a": 1}]\n\n{"b": 2}'))).toEqual([
    { line: 3, message: 'not valid JSON: text after the array' },
  ]);
});

it('reads JSON Lines and reports every malformed line', () => {
  expect(readJsonRecords('{"a":1}\r\n\n{"b":2}\n')).toEqual([
    { line: 1, value: { a: 1 } },
    { line: 3, value: { b: 2 } },
  ]);
  expect(problemsOf(() => readJsonRecords('{"a":1}\n{oops\n{"b":2}\n[\n')).map((p) => p.line)).toEqual([
    2, 4,
  ]);
});

it('reads a large JSON array in linear time', () => {
  const text = `[\n${Array.from({ length: 20_000 }, (_, i) => `  {"n": ${i}, "s": "line\\n${i}"}`).join(',\n')}\n]`;
  const started = performance.now();
  const records = readJsonRecords(text);
  expect(records).toHaveLength(20_000);
  expect(records[19_999]).toEqual({ line: 20_001, value: { n: 19_999, s: 'line\n19999' } });
  // Counting lines from the top for each record (quadratic) took minutes at this size.
  expect(performance.now() - started).toBeLessThan(5000);
});

it('decodes a UTF-8 file and refuses any other bytes, naming each line that is not UTF-8', () => {
  expect(decodeImportFile(Buffer.from('a,b\nCafé,☕\n', 'utf8'))).toBe('a,b\nCafé,☕\n');
  // Windows-1252 / Latin-1, as a spreadsheet saves it: é is the lone byte 0xE9, no UTF-8.
  const latin1 = Buffer.from('item_code,name\nA-1,Caf\xe9 cups\nA-2,Mugs\nA-3,Cr\xe8me\n', 'latin1');
  expect(problemsOf(() => decodeImportFile(latin1))).toEqual([
    { line: 2, message: expect.stringMatching(/not UTF-8/) },
    { line: 4, message: expect.stringMatching(/not UTF-8/) },
  ]);
});
