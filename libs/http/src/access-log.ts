// Logging per request, paid for only when something is written. The access line is one line at
// the end of the response: request id, method, URL (credentials in its query redacted), status,
// duration (level error for 5xx, warn for 4xx, info otherwise; passing health probes are not
// logged). Nothing is built when the level hides that line. `req.log`, a child logger whose lines
// carry the request id, is created the first time a route (or the error middleware) asks for it,
// not for every request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Express, RequestHandler } from 'express';
import { INVALID_TRACEID as INVALID_TRACE_ID } from '@opentelemetry/api';
import type { Logger } from './logger';
import { requestTelemetryOf } from './request-telemetry';

/** Probes every few seconds would drown the log; their failures are still logged. */
const QUIET_PATHS = new Set(['/healthz', '/readyz']);

type AccessLevel = 'error' | 'warn' | 'info';

function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/**
 * Query parameters that carry credentials: an authorization code on an OAuth redirect (the
 * portal's /callback), a token a client put in the URL. Their values never reach a log line.
 */
const SECRET_QUERY_PARAMS =
  /([?&])(code|access_token|refresh_token|id_token|id_token_hint|token|client_secret|password)=[^&#]*/gi;

/** The URL as logged: the query kept, credentials in it replaced by `[redacted]`. */
function loggedUrl(url: string): string {
  return url.includes('?') ? url.replace(SECRET_QUERY_PARAMS, '$1$2=[redacted]') : url;
}

/** The fields an access line reads: a Node request, with the id libs/http gives it. */
export interface AccessLogRequest extends IncomingMessage {
  id: string;
  originalUrl?: string;
}

/**
 * Writes a request's access line once its response is done (or the client went away first: then
 * `aborted: true`); nothing is built when the level hides the line. For an app of createApp and
 * for the gateway's own request path alike.
 */
export function accessLineWriter(
  logger: Logger,
): (req: AccessLogRequest, res: ServerResponse, startedAt: number) => void {
  // The line holds only the fields built below (no headers, no bodies): there is nothing to
  // redact, and the logger's redaction paths would cost five times the rest of the line.
  const lines = logger.child({}, { redact: [] });
  return (req, res, startedAt) => {
    const status = res.statusCode;
    const url = loggedUrl(req.originalUrl ?? req.url ?? '/');
    let level: AccessLevel;
    if (status >= 500) level = 'error';
    else if (status >= 400) level = 'warn';
    else if (QUIET_PATHS.has(pathOf(url))) return;
    else level = 'info';
    if (!lines.isLevelEnabled(level)) return;
    // Written after the request's context ended: its trace id is taken from its span.
    const traceId = requestTelemetryOf(req)?.span.spanContext().traceId;
    lines[level](
      {
        request_id: req.id,
        ...(traceId && traceId !== INVALID_TRACE_ID ? { trace_id: traceId } : {}),
        req: { method: req.method, url, remoteAddress: req.socket?.remoteAddress },
        res: { statusCode: status },
        responseTime: Date.now() - startedAt,
        ...(res.writableFinished ? {} : { aborted: true }),
      },
      `${req.method} ${url} ${status}`,
    );
  };
}

/** One access line per request of an Express app, written when its response closes. */
export function accessLog(logger: Logger): RequestHandler {
  const write = accessLineWriter(logger);
  return (req, res, next) => {
    const startedAt = Date.now();
    res.once('close', () => write(req, res, startedAt));
    next();
  };
}

const REQUEST_LOGGER = Symbol('requestLogger');

/**
 * Gives every request of `app` a lazy `req.log`: `logger.child({ request_id })`, made on first
 * use and kept for the rest of the request. A route may also assign its own.
 */
export function provideRequestLogger(app: Express, logger: Logger): void {
  type WithLogger = { id: string; [REQUEST_LOGGER]?: Logger };
  Object.defineProperty(app.request, 'log', {
    configurable: true,
    enumerable: false,
    get(this: WithLogger): Logger {
      return (this[REQUEST_LOGGER] ??= logger.child({ request_id: this.id }));
    },
    set(this: WithLogger, value: Logger) {
      this[REQUEST_LOGGER] = value;
    },
  });
}
