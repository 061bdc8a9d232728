// The one place errors become HTTP responses: AppErrors render as they say, errors of Express's
// own body parser and router are mapped to their meaning, and anything else is a bug: a 500 whose
// body reveals nothing, logged with its stack.
import type { ServerResponse } from 'node:http';
import type { ErrorRequestHandler } from 'express';
import {
  AppError,
  BadRequestError,
  InputError,
  InternalError,
  NotFoundError,
  PayloadTooLargeError,
  UnavailableError,
  UnsupportedMediaTypeError,
  errorBody,
  isTransientInfrastructureError,
  toAppError,
} from '@ordering/errors';
import type { Logger } from './logger';
import { requestIdOf } from './request-id';

interface HttpErrorLike {
  status?: unknown;
  statusCode?: unknown;
  type?: unknown;
  expose?: unknown;
  limit?: unknown;
}

function httpStatusOf(err: HttpErrorLike): number | undefined {
  const status = err.status ?? err.statusCode;
  return typeof status === 'number' && status >= 400 && status < 600 ? status : undefined;
}

/** Maps errors thrown by Express itself (body parser, router) to AppErrors; others as toAppError. */
export function toHttpAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (typeof err === 'object' && err !== null) {
    const e = err as HttpErrorLike;
    const status = httpStatusOf(e);
    switch (e.type) {
      case 'entity.parse.failed':
        return new BadRequestError('The request body is not valid JSON');
      case 'entity.too.large':
        return new PayloadTooLargeError(
          typeof e.limit === 'number'
            ? `The request body is larger than the limit of ${e.limit} bytes`
            : 'The request body is too large',
        );
      case 'encoding.unsupported':
      case 'charset.unsupported':
        return new UnsupportedMediaTypeError(
          'The request body encoding is not supported; send UTF-8 JSON with Content-Type: application/json',
        );
    }
    // The last line of defence for text no database stores: unsafe text is refused where input is
    // parsed (json-body, request-input, pagination), but input read some other way and refused by
    // PostgreSQL (NUL: 22021; a NUL escape in jsonb: 22P05) is still the caller's error, not a 500.
    const pg = err as { code?: unknown; message?: unknown; detail?: unknown };
    if (
      (pg.code === '22021' || pg.code === '22P05') &&
      /0x00|\\u0000/.test(`${String(pg.message)} ${String(pg.detail)}`)
    )
      return new InputError('A value holds a NUL character, which no field accepts');
    // body-parser's other client errors (a compressed body that does not decompress, a size that
    // does not match Content-Length, an aborted body) and the router's undecodable path. A body
    // that cannot be read is a body that is not JSON: decisions.md's `invalid_json`.
    if (status !== undefined && status < 500 && e.expose !== false) {
      if (err instanceof URIError) return new NotFoundError('No such resource: the path cannot be decoded');
      return new BadRequestError(
        'The request body could not be read (malformed, or not decompressible with its Content-Encoding)',
      );
    }
  }
  // The service's database (or another dependency) is down, restarting, or dropped the connection
  // mid-request, or its pool is exhausted: decisions.md's 503 `service_unavailable`, not a bug's 500.
  // Still logged at error level with its cause (sendError) for on-call.
  if (isTransientInfrastructureError(err)) {
    return new UnavailableError('A service behind the API could not use its database just now; retry later');
  }
  return toAppError(err);
}

export interface ErrorMiddlewareOptions {
  /** Used when the request has no `req.log` (an app not made by createApp). */
  logger?: Logger;
}

/**
 * Answers `err` as the API's error body (its status, headers and `error` object, with the request
 * id), logging a 5xx with its cause. False when the response has begun (too late for a body): the
 * caller ends the connection. For an Express app and for the gateway's own request path alike.
 */
export function sendError(
  err: unknown,
  req: { id?: unknown },
  res: ServerResponse,
  /** The logger for a 5xx, asked for only then. */
  log: () => Logger | undefined,
): boolean {
  const appError = toHttpAppError(err);
  if (appError.status >= 500) {
    const cause = appError instanceof InternalError ? (appError.cause ?? err) : err;
    log()?.error({ err: cause, code: appError.code }, 'request failed');
  }
  if (res.headersSent) return false;
  for (const [name, value] of Object.entries(appError.headers)) res.setHeader(name, value);
  const body = JSON.stringify(errorBody(appError, requestIdOf(req, res)));
  res.statusCode = appError.status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
  return true;
}

export function errorMiddleware(options: ErrorMiddlewareOptions = {}): ErrorRequestHandler {
  return (err, req, res, next) => {
    const log = () => (req as { log?: Logger }).log ?? options.logger;
    // Too late for an error body: let Express end the connection.
    if (!sendError(err, req, res, log)) next(err);
  };
}

/**
 * An error handler for the requests under `prefix` only (a section with its own error format:
 * SCIM, the sign-in pages), to be mounted at the root. Mounted at the prefix itself, Express would
 * set `req.baseUrl` to it while the handler answers, and the request's route label
 * (request-telemetry.ts: baseUrl + the route's path) would name the prefix twice.
 */
export function errorHandlerUnder(prefix: string, handler: ErrorRequestHandler): ErrorRequestHandler {
  return (err, req, res, next) => {
    if (req.path === prefix || req.path.startsWith(`${prefix}/`)) handler(err, req, res, next);
    else next(err);
  };
}
