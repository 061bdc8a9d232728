// Every request's SERVER span and metrics (libs/telemetry), for every process built on createApp:
// the span is active while the handlers run (log lines and DB query spans join it), the response
// names its trace in `traceresponse`, and at the end the span is named after the route template
// and the duration is recorded per method, route and status. Probes and scrapes make neither.
import { context } from '@opentelemetry/api';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler, Response } from 'express';
import {
  endRequestTelemetry,
  paramAttributes,
  startRequestTelemetry,
  TRACE_RESPONSE_HEADER,
  type RequestTelemetry,
} from '@ordering/telemetry';

/** Not traced and not counted: probes every few seconds and Prometheus scrapes. */
const UNTRACED_PATHS = new Set(['/healthz', '/readyz', '/livez', '/metrics']);

/** The route label of requests no route matched (one label, whatever the path: no cardinality blow-up). */
export const UNMATCHED_ROUTE = 'unmatched';

const TELEMETRY = Symbol('requestTelemetry');
const ROUTE = Symbol('telemetryRoute');

type Traced = { [TELEMETRY]?: RequestTelemetry; [ROUTE]?: string };
/** Any request object: Express's, or Node's own where a process serves without Express. */
type AnyRequest = object;

function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

/** Express's `/v1/users/:login` as the API writes it: `/v1/users/{login}`. */
function templateOf(req: Request): string {
  const own = (req as Traced)[ROUTE];
  if (own) return own;
  const path = (req.route as { path?: unknown } | undefined)?.path;
  if (typeof path !== 'string') return UNMATCHED_ROUTE;
  return `${req.baseUrl}${path}`.replace(/:(\w+)/g, '{$1}');
}

/** Names the request's route for its span and metrics when Express routing does not (the gateway). */
export function setTelemetryRoute(req: AnyRequest, template: string): void {
  (req as Traced)[ROUTE] = template;
}

/** The route template named by `setTelemetryRoute`, or the label of unrouted requests. */
export function telemetryRouteOf(req: AnyRequest): string {
  return (req as Traced)[ROUTE] ?? UNMATCHED_ROUTE;
}

/**
 * Starts the request's SERVER span and metrics, keeps them on the request (`requestTelemetryOf`)
 * and names the trace in the `traceresponse` header. For an app of createApp and for a request
 * served without Express alike; `endRequestTelemetry` ends them.
 */
export function beginRequestTelemetry(
  req: IncomingMessage & { id: string },
  res: ServerResponse,
  trustIncomingContext: boolean,
): RequestTelemetry {
  const telemetry = startRequestTelemetry({
    method: req.method ?? 'GET',
    headers: req.headers,
    trustIncomingContext,
    requestId: req.id,
  });
  (req as Traced)[TELEMETRY] = telemetry;
  if (telemetry.traceResponse) res.setHeader(TRACE_RESPONSE_HEADER, telemetry.traceResponse);
  return telemetry;
}

/** The telemetry of the request (its span), if it is traced. */
export function requestTelemetryOf(req: AnyRequest): RequestTelemetry | undefined {
  return (req as Traced)[TELEMETRY];
}

export interface RequestTelemetryOptions {
  /** Continue the caller's `traceparent` (services behind the gateway) or start a new trace (the gateway). */
  trustIncomingContext: boolean;
}

export function requestTelemetry(options: RequestTelemetryOptions): RequestHandler {
  return (req: Request, res: Response, next) => {
    if (UNTRACED_PATHS.has(pathOf(req.url))) return next();
    const telemetry = beginRequestTelemetry(req, res, options.trustIncomingContext);
    // `on`, not `once` (no wrapper per request): a response emits 'close' once.
    res.on('close', () => {
      const route = templateOf(req);
      if (telemetry.span.isRecording()) {
        telemetry.span.setAttributes(
          paramAttributes(req.params as Record<string, unknown> | undefined, route),
        );
        if (req.identity) telemetry.span.setAttribute('ordering.cust_id', req.identity.cust_id);
      }
      endRequestTelemetry(telemetry, {
        method: req.method,
        route,
        status: res.statusCode,
        aborted: !res.writableFinished,
      });
    });
    context.with(telemetry.context, next);
  };
}
