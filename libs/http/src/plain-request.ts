// What createApp does around a request, for requests a process serves without Express: the
// gateway's proxied requests, its hot path, where Express's router, its request and response
// prototypes and the middleware chain were a measurable share of the CPU per request. The same
// request id, SERVER span and duration metric, `traceresponse`, access line and error body as an
// app of createApp, with one 'close' listener per request.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { context } from '@opentelemetry/api';
import { endRequestTelemetry } from '@ordering/telemetry';
import { accessLineWriter } from './access-log';
import { sendError } from './error-middleware';
import type { Logger } from './logger';
import { assignRequestId } from './request-id';
import { beginRequestTelemetry, telemetryRouteOf } from './request-telemetry';

/** A Node request with its request id. */
export interface PlainRequest extends IncomingMessage {
  id: string;
}

/** What a plain handler gets beside the request and the response. */
export interface PlainRequestContext {
  /** A logger whose lines carry the request id, made on first use. */
  log(): Logger;
}

export type PlainHandler = (
  req: PlainRequest,
  res: ServerResponse,
  ctx: PlainRequestContext,
) => Promise<void>;

export interface PlainRequestOptions {
  logger: Logger;
  /** As createApp's `trustIncomingTraceContext`. */
  trustIncomingContext: boolean;
}

/**
 * Serves a request with `handle` inside createApp's envelope; a rejection of `handle` is answered
 * as the API's error body (or ends the connection when the response has begun). The handler names
 * its route with `setTelemetryRoute`.
 */
export function plainRequestServer(
  options: PlainRequestOptions,
): (req: IncomingMessage, res: ServerResponse, handle: PlainHandler) => void {
  const writeAccessLine = accessLineWriter(options.logger);
  return (incoming, res, handle) => {
    const startedAt = Date.now();
    const req = incoming as PlainRequest;
    const id = assignRequestId(req, res);
    const method = req.method ?? 'GET';
    const telemetry = beginRequestTelemetry(req, res, options.trustIncomingContext);
    let log: Logger | undefined;
    const ctx: PlainRequestContext = { log: () => (log ??= options.logger.child({ request_id: id })) };
    res.on('close', () => {
      endRequestTelemetry(telemetry, {
        method,
        route: telemetryRouteOf(req),
        status: res.statusCode,
        aborted: !res.writableFinished,
      });
      writeAccessLine(req, res, startedAt);
    });
    context.with(telemetry.context, () => {
      handle(req, res, ctx).catch((err: unknown) => {
        if (!sendError(err, req, res, ctx.log)) res.destroy();
      });
    });
  };
}
