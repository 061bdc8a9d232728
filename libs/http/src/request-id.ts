// The request id: a caller's sane `X-Request-Id` is kept (so one id follows a request through the
// gateway and the services), anything else is replaced by a fresh `req_<random>`.
import { randomFillSync } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';

export const REQUEST_ID_HEADER = 'X-Request-Id';
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,200}$/;

export function isSaneRequestId(value: unknown): value is string {
  return typeof value === 'string' && SANE_REQUEST_ID.test(value);
}

/** Random bytes drawn 12 at a time: one call into the system's generator per 512 ids, not per id. */
const ID_BYTES = 12;
const pool = Buffer.allocUnsafe(ID_BYTES * 512);
let poolOffset = pool.length;

/** `req_` and 16 letters and digits: 12 random bytes in base64url, with `-` and `_` made `x`. */
export function newRequestId(): string {
  if (poolOffset === pool.length) {
    randomFillSync(pool);
    poolOffset = 0;
  }
  const random = pool.toString('base64url', poolOffset, (poolOffset += ID_BYTES));
  return `req_${random.replace(/[-_]/g, 'x')}`;
}

/** Sets `req.id` (the caller's sane `X-Request-Id`, or a fresh one) and the response header. */
export function assignRequestId(req: IncomingMessage & { id?: string }, res: ServerResponse): string {
  const incoming = req.headers['x-request-id'];
  const id = isSaneRequestId(incoming) ? incoming : newRequestId();
  req.id = id;
  res.setHeader(REQUEST_ID_HEADER, id);
  return id;
}

/** Sets `req.id` and the `X-Request-Id` response header. */
export function requestId(): RequestHandler {
  return (req, res, next) => {
    assignRequestId(req, res);
    next();
  };
}

/** The id to put in an error body: the response header wins so that both always agree. */
export function requestIdOf(req: { id?: unknown }, res: { getHeader(name: string): unknown }): string {
  const header = res.getHeader(REQUEST_ID_HEADER);
  if (typeof header === 'string' && header) return header;
  return typeof req.id === 'string' && req.id ? req.id : newRequestId();
}
