// The query parameters each operation of the route table takes, as the OpenAPI document lists them
// (`OPERATIONS[...].query`). The gateway refuses any other name with 422 `unknown_field` naming it:
// a misspelt filter (`?stauts=approved`, `?created_since=...`) would otherwise be dropped and the
// caller would read the whole unfiltered list as if it were the filtered one.
import { InputError } from '@ordering/errors';
import type { Route } from '../route-table';
import { OPERATIONS, type RouteKey } from './operation-catalog';

const known = new Map<string, ReadonlySet<string>>();

/** The query names `route` takes (none for an operation without a query schema). */
export function knownQueryParameters(route: Route): ReadonlySet<string> {
  const key = `${route.method} ${route.path}` as RouteKey;
  let names = known.get(key);
  if (!names) {
    names = new Set(Object.keys(OPERATIONS[key]?.query?.shape ?? {}));
    known.set(key, names);
  }
  return names;
}

/** 422 `unknown_field` (param = the name) for the first query name `route` does not take. */
export function assertKnownQueryParameters(route: Route, query: Record<string, unknown>): void {
  const names = knownQueryParameters(route);
  for (const name of Object.keys(query)) {
    if (names.has(name)) continue;
    const accepted = [...names];
    throw new InputError(
      `Unknown query parameter: ${name}; ${
        accepted.length > 0
          ? `this request accepts only ${accepted.join(', ')}`
          : 'this request takes no query parameters'
      }`,
      name,
      'unknown_field',
    );
  }
}
