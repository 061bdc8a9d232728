// Small helpers for the manual spans: run work in a span (a use case, a step worth seeing), and a
// CLIENT span around a call to another of our processes, whose `traceparent` the callee continues.
import {
  context,
  propagation,
  ProxyTracerProvider,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';

let cached: { provider: TracerProvider; tracer: Tracer } | undefined;

/**
 * The platform's tracer, from the provider registered now. Kept while that provider stays
 * registered: asking the provider for it on every span (a key string built and looked up in a map)
 * showed in the request's profile.
 */
export function tracer(): Tracer {
  const global = trace.getTracerProvider();
  const provider = global instanceof ProxyTracerProvider ? global.getDelegate() : global;
  if (cached?.provider !== provider) cached = { provider, tracer: provider.getTracer('ordering') };
  return cached.tracer;
}

export function recordError(span: Span, err: unknown): void {
  if (!span.isRecording()) return;
  span.recordException(err instanceof Error ? err : String(err));
  span.setStatus({ code: SpanStatusCode.ERROR, message: err instanceof Error ? err.message : String(err) });
}

/** Runs `fn` in an INTERNAL span (child of the active one), ended when it settles. */
export async function withSpan<T>(
  name: string,
  fn: (span: Span) => Promise<T>,
  attributes: Attributes = {},
): Promise<T> {
  const span = tracer().startSpan(name, { attributes });
  try {
    return await context.with(trace.setSpan(context.active(), span), () => fn(span));
  } catch (err) {
    recordError(span, err);
    throw err;
  } finally {
    span.end();
  }
}

export interface ClientSpan {
  span: Span;
  /** `traceparent` (and `tracestate`) to send with the call. */
  headers: Record<string, string>;
}

/** Starts a CLIENT span (child of the active one) for a call the caller makes and ends. */
export function startClientSpan(name: string, attributes: Attributes = {}): ClientSpan {
  const parent = context.active();
  const span = tracer().startSpan(name, { kind: SpanKind.CLIENT, attributes }, parent);
  const headers: Record<string, string> = {};
  propagation.inject(trace.setSpan(parent, span), headers);
  return { span, headers };
}

/** Runs a call (given the trace headers to send) in a CLIENT span; `status` marks 5xx answers. */
export async function withClientSpan<T extends { status: number }>(
  name: string,
  attributes: Attributes,
  call: (headers: Record<string, string>) => Promise<T>,
): Promise<T> {
  const { span, headers } = startClientSpan(name, attributes);
  try {
    const result = await call(headers);
    if (span.isRecording()) {
      span.setAttribute('http.response.status_code', result.status);
      if (result.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    }
    return result;
  } catch (err) {
    recordError(span, err);
    throw err;
  } finally {
    span.end();
  }
}
