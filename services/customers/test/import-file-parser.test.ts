// Reading onboarding files: the account's CSV columns, JSON arrays and JSON Lines (CSV quoting and
// line numbers: libs/import-files).
import { ImportParseError } from '@ordering/import-files';
import { parseImportFile } from '../src/domain/import-file-parser';

it('maps CSV columns to account fields, with one optional address per row', () => {
  const [record] = parseImportFile(
    'csv',
    '\uFEFFcust_id,name,approval_required_over,jit_provisioning,email_domains,address_type,address_default\nA,Alpha,500,true,a.example;b.example,billing,false\n',
  );
  expect(record).toEqual({
    line: 2,
    value: {
      cust_id: 'A',
      name: 'Alpha',
      approval_required_over: 500,
      jit_provisioning: true,
      email_domains: ['a.example', 'b.example'],
      addresses: [{ type: 'billing', default: false }],
    },
  });
});

it('gives each element of a pretty-printed JSON array the line it starts on', () => {
  const text = '[\n  {"cust_id": "A", "name": "[not, a] {bracket}"},\n\n  {\n    "cust_id": "B"\n  }\n]';
  expect(parseImportFile('json', text).map((r) => r.line)).toEqual([2, 4]);
});

it('reports every malformed JSON line', () => {
  try {
    parseImportFile('json', '{"a":1}\n{oops\n{"b":2}\n[\n');
    throw new Error('accepted');
  } catch (err) {
    expect(err).toBeInstanceOf(ImportParseError);
    expect((err as ImportParseError).problems.map((p) => p.line)).toEqual([2, 4]);
  }
});
