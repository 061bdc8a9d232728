// The README's route table is documentation integrators and the other teams read: it must say
// exactly what the route table does.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ROUTES } from '../src';

it('the README lists exactly the routes of the route table, with their services and scopes', () => {
  const readme = readFileSync(path.join(__dirname, '..', 'README.md'), 'utf8');
  const section = /<!-- route-table:start[^>]*-->([\s\S]*?)<!-- route-table:end -->/.exec(readme)?.[1] ?? '';
  const cells = (line: string) =>
    line
      .split('|')
      .slice(1, -1)
      .map((c) => c.trim());
  const rows = section
    .split('\n')
    .map(cells)
    .filter((row) => /^(GET|POST|PUT|PATCH|DELETE)$/.test(row[0] ?? ''));
  const expected = ROUTES.map((r) => [
    r.method,
    r.path,
    r.service,
    r.scopes.length === 0 ? 'none (no token)' : r.scopes.join(', '),
  ]);
  expect(rows).toEqual(expected);
});
