// Trace context through Kafka: the producer writes W3C `traceparent`/`tracestate` headers, the
// consumer continues the producer's trace in a CONSUMER span.
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Context,
  type Span,
  type TextMapGetter,
} from '@opentelemetry/api';

/** Kafka message headers as kafkajs gives them (`IHeaders`), or as we write them. */
export type MessageHeaders = Record<string, Buffer | string | (Buffer | string)[] | undefined>;

export const TRACE_HEADERS = ['traceparent', 'tracestate'] as const;

import { recordError, tracer } from './spans';

export { recordError };

function headerValue(value: Buffer | string | (Buffer | string)[] | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value;
  return first === undefined ? undefined : first.toString();
}

const headersGetter: TextMapGetter<MessageHeaders> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => headerValue(carrier[key] ?? carrier[key.toLowerCase()]),
};

/** W3C trace headers of `ctx` (default: the active context); `{}` when there is no span. */
export function injectTraceHeaders(ctx: Context = context.active()): Record<string, string> {
  const headers: Record<string, string> = {};
  propagation.inject(ctx, headers);
  return headers;
}

/** The context a message's headers carry (the root context when they carry none). */
export function extractTraceContext(headers: MessageHeaders | undefined): Context {
  return propagation.extract(ROOT_CONTEXT, headers ?? {}, headersGetter);
}

function parentContext(parent: MessageHeaders | Context | undefined): Context {
  if (parent === undefined) return context.active();
  return isContext(parent) ? parent : extractTraceContext(parent);
}

function isContext(value: MessageHeaders | Context): value is Context {
  return (
    typeof (value as Context).getValue === 'function' && typeof (value as Context).setValue === 'function'
  );
}

async function runInSpan<T>(span: Span, ctx: Context, fn: () => Promise<T>): Promise<T> {
  try {
    const result = await context.with(ctx, fn);
    span.setStatus({ code: SpanStatusCode.OK });
    return result;
  } catch (err) {
    recordError(span, err);
    throw err;
  } finally {
    span.end();
  }
}

/**
 * Runs `fn` in a CONSUMER span that continues the trace of the message's headers (a child of the
 * producer's span). The span ends when `fn` settles and records its error.
 */
export function withConsumerSpan<T>(
  name: string,
  headers: MessageHeaders | undefined,
  fn: (span: Span) => Promise<T>,
  attributes: Attributes = {},
): Promise<T> {
  const parent = extractTraceContext(headers);
  const span = tracer().startSpan(name, { kind: SpanKind.CONSUMER, attributes }, parent);
  return runInSpan(span, trace.setSpan(parent, span), () => fn(span));
}

export interface ProducerSpan {
  span: Span;
  /** Trace headers to send with the message: they make the consumer's span a child of this span. */
  headers: Record<string, string>;
}

/**
 * Starts a PRODUCER span, child of `parent` (headers captured earlier, e.g. in an outbox row, or a
 * Context; default the active context). The caller ends it: for batches sent at once.
 */
export function startProducerSpan(
  name: string,
  parent?: MessageHeaders | Context,
  attributes: Attributes = {},
): ProducerSpan {
  const parentCtx = parentContext(parent);
  const span = tracer().startSpan(name, { kind: SpanKind.PRODUCER, attributes }, parentCtx);
  return { span, headers: injectTraceHeaders(trace.setSpan(parentCtx, span)) };
}

/** Runs `fn` (which sends the message with the given headers) in a PRODUCER span. */
export function withProducerSpan<T>(
  name: string,
  parent: MessageHeaders | Context | undefined,
  fn: (headers: Record<string, string>, span: Span) => Promise<T>,
  attributes: Attributes = {},
): Promise<T> {
  const parentCtx = parentContext(parent);
  const { span, headers } = startProducerSpan(name, parentCtx, attributes);
  return runInSpan(span, trace.setSpan(parentCtx, span), () => fn(headers, span));
}
