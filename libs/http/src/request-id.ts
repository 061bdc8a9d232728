// The request id: a caller's sane `X-Request-Id` is kept (so one id follows a request through the
// gateway and the services), anything else is replaced by a fresh `req_<random>`.
import { randomBytes } from 'node:crypto';
import type { RequestHandler } from 'express';

export const REQUEST_ID_HEADER = 'X-Request-Id';
const SANE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,200}$/;

export function isSaneRequestId(value: unknown): value is string {
  return typeof value === 'string' && SANE_REQUEST_ID.test(value);
}

export function newRequestId(): string {
  return `req_${randomBytes(12)
    .toString('base64url')
    .replace(/[^A-Za-z0-9]/g, 'x')}`;
}

/** Sets `req.id` and the `X-Request-Id` response header. */
export function requestId(): RequestHandler {
  return (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const id = isSaneRequestId(incoming) ? incoming : newRequestId();
    req.id = id;
    res.setHeader(REQUEST_ID_HEADER, id);
    next();
  };
}

/** The id to put in an error body: the response header wins so that both always agree. */
export function requestIdOf(req: { id?: unknown }, res: { getHeader(name: string): unknown }): string {
  const header = res.getHeader(REQUEST_ID_HEADER);
  if (typeof header === 'string' && header) return header;
  return typeof req.id === 'string' && req.id ? req.id : newRequestId();
}
