// Cursor pagination shared by every list endpoint (decisions.md "Pagination"): `limit` 1..100
// (default 25), `starting_after` = the previous page's opaque `next_cursor`.
import { isUtf8 } from 'node:buffer';
import type { Request } from 'express';
import { InputError } from '@ordering/errors';
import { isUnsafeText } from './unsafe-text';

export type Cursor = Record<string, string | number>;

export interface ListParams {
  limit: number;
  startingAfter?: Cursor;
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
 * malformed, holds unsafe text or lacks one of `requiredKeys`.
 */
export function decodeCursor(s: string, requiredKeys: string[] = []): Cursor {
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
  if (requiredKeys.some((k) => !(k in cursor))) throw invalidCursor();
  return cursor;
}

export interface ListParamsOptions {
  /** Keys every cursor of this endpoint holds; a cursor without them is invalid. */
  cursorKeys?: string[];
}

/** Reads `limit` and `starting_after` from a query object (Express's `req.query`). */
export function parseListParams(query: Record<string, unknown>, options: ListParamsOptions = {}): ListParams {
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
  return { limit, startingAfter: decodeCursor(rawCursor, options.cursorKeys) };
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
