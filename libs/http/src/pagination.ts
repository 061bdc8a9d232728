// Cursor pagination shared by every list endpoint (decisions.md "Pagination"): `limit` 1..100
// (default 25), `starting_after` = the previous page's opaque `next_cursor`.
import { isUtf8 } from 'node:buffer';
import type { Request } from 'express';
import { InputError } from '@ordering/errors';
import { parseIsoTimestamp } from './iso-timestamp';
import { isUnsafeText } from './unsafe-text';

export type Cursor = Record<string, string | number>;

/**
 * What one field of an endpoint's cursor holds: `id` an identifier the API made (`ord_` + ULID),
 * `text` other non-empty text (a login, an account id, an item code), `timestamp` an ISO 8601
 * date-time (as `Date.toISOString()` writes it).
 */
export type CursorField = 'id' | 'text' | 'timestamp';

/** The fields of an endpoint's cursor, each with what it holds; a cursor has exactly these. */
export type CursorShape = Readonly<Record<string, CursorField>>;

/** A decoded cursor of `S`: timestamps as `Date`, the rest as strings. */
export type CursorOf<S extends CursorShape> = { [K in keyof S]: S[K] extends 'timestamp' ? Date : string };

export interface ListParams<C = Cursor> {
  limit: number;
  startingAfter?: C;
}

export interface ListEnvelope<T> {
  object: 'list';
  url: string;
  has_more: boolean;
  next_cursor: string | null;
  data: T[];
}

export const DEFAULT_LIMIT = 25;
export const MAX_LIMIT = 100;

export function encodeCursor(values: Cursor): string {
  return Buffer.from(JSON.stringify(values)).toString('base64url');
}

const invalidCursor = () =>
  new InputError('starting_after is not a cursor this API returned (use next_cursor)', 'starting_after');

/**
 * Decodes a cursor made by `encodeCursor`; 422 invalid_value (param `starting_after`) when it is
 * malformed or holds unsafe text. Its fields are not checked: a list reads its cursor with
 * `parseListParams(query, { cursor: shape })`, which checks each one.
 */
export function decodeCursor(s: string): Cursor {
  if (typeof s !== 'string' || !/^[A-Za-z0-9_-]+$/.test(s)) throw invalidCursor();
  let value: unknown;
  try {
    const bytes = Buffer.from(s, 'base64url');
    if (!isUtf8(bytes)) throw invalidCursor();
    value = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw invalidCursor();
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw invalidCursor();
  const entries = Object.entries(value);
  if (entries.length === 0) throw invalidCursor();
  const cursor: Cursor = {};
  for (const [key, v] of entries) {
    // A forged cursor may carry text no database accepts (NUL, lone surrogates): not ours either.
    if (typeof v === 'string' && !isUnsafeText(v) && !isUnsafeText(key)) cursor[key] = v;
    else if (typeof v === 'number' && Number.isFinite(v)) cursor[key] = v;
    else throw invalidCursor();
  }
  return cursor;
}

/** `<prefix>_<ULID>`, as `newId` of @ordering/contracts makes them. */
const API_ID = /^[a-z][a-z0-9]*_[0-9A-HJKMNP-TV-Z]{26}$/;

/**
 * The values of a decoded cursor as `shape` says, or 422 invalid_value (param `starting_after`)
 * when it lacks a field, has one more, or a field of the wrong type: a forged timestamp would
 * otherwise reach the database as an invalid date (a 500), a number as a year.
 */
export function cursorValues<S extends CursorShape>(cursor: Cursor, shape: S): CursorOf<S> {
  const keys = Object.keys(shape);
  if (Object.keys(cursor).length !== keys.length) throw invalidCursor();
  const values: Record<string, string | Date> = {};
  for (const key of keys) {
    const value = Object.hasOwn(cursor, key) ? cursor[key] : undefined;
    if (typeof value !== 'string' || value === '') throw invalidCursor();
    switch (shape[key]) {
      case 'timestamp': {
        const time = parseIsoTimestamp(value);
        if (time === undefined) throw invalidCursor();
        values[key] = time;
        break;
      }
      case 'id':
        if (!API_ID.test(value)) throw invalidCursor();
        values[key] = value;
        break;
      default:
        values[key] = value;
    }
  }
  return values as CursorOf<S>;
}

export interface ListParamsOptions<S extends CursorShape> {
  /** The fields of this endpoint's cursor; a cursor of another shape is 422 `starting_after`. */
  cursor: S;
}

/**
 * Reads `limit` and `starting_after` from a query object (Express's `req.query`). Every list names
 * its cursor's shape, so that each refuses a forged cursor alike; without one (a list whose cursor
 * has several shapes), the decoded values are the caller's to check.
 */
export function parseListParams(query: Record<string, unknown>): ListParams;
export function parseListParams<S extends CursorShape>(
  query: Record<string, unknown>,
  options: ListParamsOptions<S>,
): ListParams<CursorOf<S>>;
export function parseListParams(
  query: Record<string, unknown>,
  options?: ListParamsOptions<CursorShape>,
): ListParams<Cursor | CursorOf<CursorShape>> {
  const rawLimit = query.limit;
  let limit = DEFAULT_LIMIT;
  if (rawLimit !== undefined) {
    const ok = typeof rawLimit === 'string' && /^\d{1,4}$/.test(rawLimit);
    limit = ok ? Number(rawLimit) : NaN;
    if (!(limit >= 1 && limit <= MAX_LIMIT)) {
      throw new InputError(`limit must be an integer between 1 and ${MAX_LIMIT}`, 'limit');
    }
  }
  const rawCursor = query.starting_after;
  if (rawCursor === undefined) return { limit };
  if (typeof rawCursor !== 'string') throw invalidCursor();
  const cursor = decodeCursor(rawCursor);
  return { limit, startingAfter: options ? cursorValues(cursor, options.cursor) : cursor };
}

export function listEnvelope<T>(
  url: string,
  data: T[],
  hasMore: boolean,
  nextCursor: string | null,
): ListEnvelope<T> {
  return { object: 'list', url, has_more: hasMore, next_cursor: hasMore ? nextCursor : null, data };
}

/**
 * A page from rows fetched with `limit + 1`: the extra row only says that there is more.
 * `cursorOf` names the position of the page's last row (the values the next query continues after).
 */
export function pageOf<T>(
  rows: T[],
  limit: number,
  cursorOf: (last: T) => Cursor,
): { data: T[]; hasMore: boolean; nextCursor: string | null } {
  const hasMore = rows.length > limit;
  const data = hasMore ? rows.slice(0, limit) : rows;
  const last = data[data.length - 1];
  return { data, hasMore, nextCursor: hasMore && last !== undefined ? encodeCursor(cursorOf(last)) : null };
}

/** The list envelope's `url`: the request path without the query. */
export function requestPath(req: Request): string {
  return (req.originalUrl ?? req.url).split('?')[0] ?? '/';
}
