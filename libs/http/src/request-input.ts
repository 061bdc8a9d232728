// Reading a request's input into values a use case can trust, with every refusal in the API's
// error shape: a body against its zod contract (absent field 422 missing_required_field, unknown
// field 422 unknown_field, malformed one 422 invalid_value, each naming `param`), path parameters
// and query values. Unsafe text (NUL, lone surrogates) is refused by each of them, so that it
// never reaches a database whatever route reads it.
import type { Request } from 'express';
import type { z } from 'zod';
import { EmptyRequest, summarizeIssues } from '@ordering/contracts';
import { InputError, MissingFieldError } from '@ordering/errors';
import { parseIsoTimestamp } from './iso-timestamp';
import { assertSafeInput, isUnsafeText, printable, unsafeInputError } from './unsafe-text';

/**
 * The body parsed by `schema` (a request schema of @ordering/contracts, strict), or the API error
 * for its first problem. An unknown field is reported before any other problem: it is the most
 * likely cause of the others (a misspelt field name).
 */
export function parseBody<S extends z.ZodType>(schema: S, input: unknown, paramPrefix = ''): z.infer<S> {
  if (paramPrefix === '' && (typeof input !== 'object' || input === null || Array.isArray(input))) {
    throw new InputError('The request body must be a JSON object');
  }
  assertSafeInput(input, paramPrefix);
  const result = schema.safeParse(input);
  if (result.success) return result.data;
  const issues = summarizeIssues(result.error, input);
  const first = issues.find((i) => i.unknown) ?? issues[0];
  const path = [paramPrefix, first?.path ?? ''].filter(Boolean).join('.') || undefined;
  if (first?.unknown && path) {
    throw new InputError(
      `Unknown field: ${path}; this request accepts only the documented fields`,
      path,
      'unknown_field',
    );
  }
  if (first?.missing && path) throw new MissingFieldError(path);
  throw new InputError(
    path ? `${path}: ${first?.message ?? 'invalid value'}` : (first?.message ?? 'Invalid value'),
    path,
  );
}

/**
 * The body of a route whose body is optional (cancel, approve): `{}` when the request sent none,
 * else what it sent, so that `null` or `[]` is refused by `parseBody` like any other non-object.
 */
export function optionalBody(req: Request): unknown {
  return req.body === undefined ? {} : req.body;
}

/**
 * The body of an action without parameters (`EmptyRequest`): none or `{}` passes; a field in it is
 * 422 `unknown_field` naming it and a body that is not an object 422 `invalid_value`, as for any
 * other body, so that a client never believes a parameter was applied when it was dropped.
 */
export function assertEmptyBody(req: Request): void {
  parseBody(EmptyRequest, optionalBody(req));
}

/** A named route parameter as a string; 422 invalid_value naming it when it holds unsafe text. */
export function pathParam(req: Request, name: string): string {
  const raw = (req.params as Record<string, unknown>)[name];
  const value = typeof raw === 'string' ? raw : String(raw ?? '');
  if (isUnsafeText(value)) throw unsafeInputError({ path: name, problem: 'unsafe_text' });
  return value;
}

/** An optional single query value; a repeated, empty or unsafe one is 422 invalid_value naming it. */
export function optionalQuery(query: Record<string, unknown>, name: string): string | undefined {
  const value = query[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string' || value === '')
    throw new InputError(`${name} must be a single non-empty value`, name);
  if (isUnsafeText(value)) throw unsafeInputError({ path: name, problem: 'unsafe_text' });
  return value;
}

/**
 * An optional date-time query value (`created_after`, ...): an ISO 8601 date or date-time with a
 * zone naming a real day and time (2026-02-30 is refused, not rolled over to March 2); otherwise
 * 422 invalid_value naming it.
 */
export function optionalTimestampQuery(query: Record<string, unknown>, name: string): Date | undefined {
  const value = optionalQuery(query, name);
  if (value === undefined) return undefined;
  const time = parseIsoTimestamp(value);
  if (time === undefined) {
    throw new InputError(
      `${name} must be an ISO 8601 date-time with a zone (e.g. 2026-11-22T09:30:00Z) or a date read as midnight UTC (e.g. 2026-11-22), naming a real day and time`,
      name,
    );
  }
  return time;
}

export function optionalEnumQuery<T extends string>(
  query: Record<string, unknown>,
  name: string,
  allowed: readonly T[],
): T | undefined {
  const value = optionalQuery(query, name);
  if (value === undefined) return undefined;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new InputError(`${name} must be one of ${allowed.join(', ')}`, name);
  }
  return value as T;
}

/**
 * Refuses a request whose query string holds unsafe text in a name or a value (422 invalid_value,
 * `param` = the query parameter), whatever the route reads later.
 */
export function assertSafeQuery(query: unknown): void {
  if (typeof query !== 'object' || query === null) return;
  for (const [name, value] of Object.entries(query as Record<string, unknown>)) {
    if (isUnsafeText(name)) throw unsafeInputError({ path: printable(name), problem: 'unsafe_text' });
    const values = Array.isArray(value) ? value : [value];
    for (const v of values) {
      if (typeof v === 'string' && isUnsafeText(v))
        throw unsafeInputError({ path: name, problem: 'unsafe_text' });
      if (typeof v === 'object' && v !== null) assertSafeInput(v, name);
    }
  }
}

/** A run of percent-escapes: the bytes one decoded piece of a query name or value is made of. */
const ESCAPE_RUN = /(?:%[0-9a-fA-F]{2})+/g;

function decodesAsUtf8(text: string): boolean {
  for (const run of text.match(ESCAPE_RUN) ?? []) {
    try {
      decodeURIComponent(run);
    } catch {
      return false;
    }
  }
  return true;
}

/** A query name as the parsers read it; a `%` that starts no escape stays as it is (`50%`). */
function decodedName(name: string): string {
  const spaced = name.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced.replace(ESCAPE_RUN, (run) => decodeURIComponent(run));
  }
}

/**
 * Refuses a raw query string (without the `?`) whose percent-escapes in a name or a value are not
 * UTF-8 (`%ff`, an encoded lone surrogate `%ED%A0%80`): 422 invalid_value naming the parameter.
 * The query parsers would silently turn those bytes into U+FFFD, as a path parameter that cannot be
 * decoded is refused. A `%` not followed by two hex digits is left as the parsers keep it: text.
 */
export function assertDecodableQuery(rawQuery: string): void {
  if (!rawQuery.includes('%')) return;
  for (const pair of rawQuery.split('&')) {
    if (!pair.includes('%')) continue;
    const eq = pair.indexOf('=');
    const name = eq === -1 ? pair : pair.slice(0, eq);
    const nameOk = decodesAsUtf8(name);
    if (nameOk && (eq === -1 || decodesAsUtf8(pair.slice(eq + 1)))) continue;
    const param = nameOk ? printable(decodedName(name)) : name;
    throw new InputError(`${param} is not valid UTF-8 once percent-decoded`, param);
  }
}
