// The SERVER span and the request metrics of one HTTP request, for libs/http's app (every service
// and the gateway). The span continues the caller's `traceparent` when the caller is trusted (a
// service behind the gateway) and starts a new trace otherwise (the gateway, facing the internet:
// a client can neither force sampling nor pick trace ids; its own trace is kept as a link).
import type { IncomingHttpHeaders } from 'node:http';
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Context,
  type Link,
  type Span,
  type TextMapGetter,
} from '@opentelemetry/api';
import { ATTR } from './attributes';
import { platformMetrics } from './platform-metrics';
import { tracer } from './spans';
import { traceResponseValue } from './trace-response';

const headerGetter: TextMapGetter<IncomingHttpHeaders> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key],
};

export interface RequestTelemetry {
  span: Span;
  /** The context to run the request's handlers in (the span active). */
  context: Context;
  /** The `traceresponse` header value, undefined when telemetry is off. */
  traceResponse: string | undefined;
  /** process.hrtime.bigint() at the start, for the duration metric. */
  startedAt: bigint;
}

export interface StartRequestOptions {
  method: string;
  headers: IncomingHttpHeaders;
  /** Continue the caller's trace (true behind the gateway) or start a new one linked to it. */
  trustIncomingContext: boolean;
  requestId: string;
}

export function startRequestTelemetry(options: StartRequestOptions): RequestTelemetry {
  const startedAt = process.hrtime.bigint();
  let parent: Context = ROOT_CONTEXT;
  let links: Link[] | undefined;
  if (options.headers.traceparent !== undefined) {
    const incoming = propagation.extract(ROOT_CONTEXT, options.headers, headerGetter);
    if (options.trustIncomingContext) parent = incoming;
    else {
      const callerSpan = trace.getSpanContext(incoming);
      if (callerSpan) links = [{ context: callerSpan, attributes: { 'ordering.link': 'client_trace' } }];
    }
  }
  const span = tracer().startSpan(
    options.method,
    {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': options.method, [ATTR.requestId]: options.requestId },
      ...(links ? { links } : {}),
    },
    parent,
  );
  return {
    span,
    context: trace.setSpan(parent, span),
    traceResponse: traceResponseValue(span.spanContext()),
    startedAt,
  };
}

export interface EndRequestOptions {
  method: string;
  /** The route template (`/v1/orders/{order_id}`), or a fixed word for unrouted requests. */
  route: string;
  status: number;
  /** The client went away before the answer was complete. */
  aborted?: boolean;
}

/** Names the span after its route, ends it and records the request's duration. */
export function endRequestTelemetry(t: RequestTelemetry, options: EndRequestOptions): void {
  const seconds = Number(process.hrtime.bigint() - t.startedAt) / 1e9;
  const { span } = t;
  if (span.isRecording()) {
    span.updateName(`${options.method} ${options.route}`);
    span.setAttribute('http.route', options.route);
    span.setAttribute('http.response.status_code', options.status);
    if (options.aborted) span.setAttribute('ordering.aborted', true);
    if (options.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
  }
  span.end();
  platformMetrics().httpServerDuration.record(seconds, {
    'http.request.method': options.method,
    'http.route': options.route,
    'http.response.status_code': options.status,
  });
}

/** The span of the request in progress (the active one), for attributes found along the way. */
export function activeRequestSpan(): Span | undefined {
  return trace.getSpan(context.active());
}
