// The platform's tracer: @opentelemetry/api's TracerProvider, Tracer and Span for the few manual
// spans each process makes, handing every ended span to the SDK's span processors as a
// ReadableSpan, so that export (OTLP through otlp-span-processor.ts, Zipkin, the console, the
// tests' in-memory exporter), sampling (sampler.ts, the SDK's samplers) and propagation are the
// SDK's and the API's as before. Only the span objects are ours.
//
// Why not the SDK's Tracer (issue 11: tracing may add at most 40 µs of CPU to a gateway request,
// three spans): per span, its startSpan copies and checks the attributes twice, asks the tracer
// metrics for a record, reads the clock three ways and builds [seconds, nanoseconds] arrays at
// start; each setAttribute goes through a generic check with limits objects; the processors are
// called through a MultiSpanProcessor. In the gateway's profile the SDK's span code and the API's
// context checks it calls were its largest share of tracing. Here a span keeps its times as numbers
// (HrTime arrays are made when an exporter reads them) and cleans the attributes it is given once,
// with @opentelemetry/core's own functions (the SDK's rules).
//
// Behaviour kept from the SDK (its tests are the model): a span whose sampler says NOT_RECORD is the
// API's non-recording span carrying the ids; tracing suppressed in the context (the exporters' own
// HTTP requests) gives the invalid span; a child continues its parent's trace id and trace state;
// attribute values are OpenTelemetry's AnyValue (an event's: a primitive or a homogeneous array),
// others are dropped with a warning, undefined ones ignored; at most 128 attributes per span,
// event and link (further ones counted as dropped), 128 events (the oldest dropped first) and 128
// links; a status once OK stays OK and UNSET never overrides; nothing changes after end(), and a
// second end() is reported; exceptions become `exception` events with type, message and stack.
import { randomFillSync } from 'node:crypto';
import {
  context as apiContext,
  diag,
  INVALID_SPAN_CONTEXT,
  isSpanContextValid,
  SpanKind,
  SpanStatusCode,
  trace,
  TraceFlags,
  type Attributes,
  type Context,
  type Exception,
  type HrTime,
  type Link,
  type Span as ApiSpan,
  type SpanAttributeValue,
  type SpanContext,
  type SpanOptions,
  type SpanStatus,
  type TimeInput,
  type Tracer,
  type TracerProvider,
} from '@opentelemetry/api';
import {
  AddAttributeDecision,
  cleanAttributes,
  cleanSimpleAttributes,
  isTracingSuppressed,
  maybeAddAttribute,
  type InstrumentationScope,
} from '@opentelemetry/core';
import { defaultResource, type Resource } from '@opentelemetry/resources';
import {
  SamplingDecision,
  type ReadableSpan,
  type Sampler,
  type SpanProcessor,
  type TimedEvent,
} from '@opentelemetry/sdk-trace';

/** The SDK's default limits (none on value length). */
const LIMIT = 128;

// ---- ids: random bytes from a pooled buffer, as hex ----------------------------------------------

const POOL_BYTES = 8192;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let poolAt = POOL_BYTES;

function randomHex(bytes: number): string {
  if (poolAt + bytes > POOL_BYTES) {
    randomFillSync(pool);
    poolAt = 0;
  }
  const hex = pool.toString('hex', poolAt, poolAt + bytes);
  poolAt += bytes;
  return hex;
}

/** A random id of `bytes` bytes in hex; never all zeros (W3C's invalid trace and span id). */
function newId(bytes: number): string {
  for (;;) {
    const id = randomHex(bytes);
    if (!/^0+$/.test(id)) return id;
  }
}

// ---- time: epoch milliseconds as one number, HrTime only when read -------------------------------

/**
 * Wall-clock milliseconds of `performance.now()`. The offset is kept while the wall clock agrees
 * with the monotonic one within a millisecond (checked at most once a second), so that spans of one
 * process keep their order and precision, and follows the wall clock when it was set or drifted
 * (traces are read across processes by their wall-clock times).
 */
let wallOffsetMs = Date.now() - performance.now();
let offsetCheckedAt = performance.now();

function nowMs(): number {
  const now = performance.now();
  if (now - offsetCheckedAt > 1000) {
    offsetCheckedAt = now;
    const fresh = Date.now() - now;
    if (Math.abs(fresh - wallOffsetMs) > 1) wallOffsetMs = fresh;
  }
  return now + wallOffsetMs;
}

function isHrTime(value: unknown): value is HrTime {
  return (
    Array.isArray(value) && value.length === 2 && typeof value[0] === 'number' && typeof value[1] === 'number'
  );
}

function isTimeInput(value: unknown): value is TimeInput {
  return typeof value === 'number' || value instanceof Date || isHrTime(value);
}

/** A TimeInput as epoch milliseconds (a number not above performance.now() is a performance time). */
function msOf(time: TimeInput): number {
  if (typeof time === 'number') return time <= performance.now() ? time + wallOffsetMs : time;
  if (time instanceof Date) return time.getTime();
  return time[0] * 1000 + time[1] / 1e6;
}

/**
 * Epoch milliseconds as HrTime in whole microseconds: the float's precision is about a quarter of a
 * microsecond here anyway, and Zipkin's v2 format takes integer microseconds (the SDK's times,
 * taken from Date.now(), are whole too); a fraction made Zipkin refuse the whole batch.
 */
function hrTimeOf(ms: number): HrTime {
  const micros = Math.round(ms * 1000);
  const seconds = Math.floor(micros / 1e6);
  return [seconds, (micros - seconds * 1e6) * 1000];
}

// ---- attributes: @opentelemetry/core's rules, the SDK's own --------------------------------------

/** The SDK's default limits: 128 of each, no limit on a value's length. */
const LIMITS = { attributeCountLimit: LIMIT, attributeValueLengthLimit: Infinity };

/** A link as the SDK keeps it: its attributes cleaned (copied, checked, limited). */
function linkOf(link: Link): Link {
  return { context: link.context, ...cleanAttributes(link.attributes, LIMITS) };
}

// ---- spans ----------------------------------------------------------------------------------------

interface SpanInit {
  name: string;
  kind: SpanKind;
  spanContext: SpanContext;
  parentSpanContext: SpanContext | undefined;
  /** Cleaned, with their count, and how many were dropped. */
  attributes: Attributes;
  droppedAttributesCount: number;
  links: Link[];
  droppedLinksCount: number;
  startMs: number;
  resource: Resource;
  scope: InstrumentationScope;
  processors: readonly SpanProcessor[];
}

/** Shared: a span's status is replaced, never changed in place. */
const UNSET: SpanStatus = Object.freeze({ code: SpanStatusCode.UNSET });

export class LeanSpan implements ApiSpan, ReadableSpan {
  name: string;
  readonly kind: SpanKind;
  readonly parentSpanContext: SpanContext | undefined;
  readonly attributes: Attributes;
  readonly links: Link[];
  readonly events: TimedEvent[] = [];
  status: SpanStatus = UNSET;
  readonly resource: Resource;
  readonly instrumentationScope: InstrumentationScope;
  droppedAttributesCount: number;
  droppedEventsCount = 0;
  droppedLinksCount: number;
  private readonly context: SpanContext;
  private attributeCount: number;
  private readonly processors: readonly SpanProcessor[];
  private readonly startMs: number;
  /** Epoch ms of the end, NaN until then. */
  private endMs = NaN;

  constructor(init: SpanInit) {
    this.name = init.name;
    this.kind = init.kind;
    this.context = init.spanContext;
    this.parentSpanContext = init.parentSpanContext;
    this.attributes = init.attributes;
    this.attributeCount = Object.keys(init.attributes).length;
    this.droppedAttributesCount = init.droppedAttributesCount;
    this.links = init.links;
    this.droppedLinksCount = init.droppedLinksCount;
    this.startMs = init.startMs;
    this.resource = init.resource;
    this.instrumentationScope = init.scope;
    this.processors = init.processors;
  }

  spanContext(): SpanContext {
    return this.context;
  }

  get ended(): boolean {
    return this.endMs === this.endMs; // not NaN
  }

  get startTime(): HrTime {
    return hrTimeOf(this.startMs);
  }

  /** [0, 0] until the span ended, as the SDK's. */
  get endTime(): HrTime {
    return this.ended ? hrTimeOf(this.endMs) : [0, 0];
  }

  /** [-1, -1] until the span ended, as the SDK's. */
  get duration(): HrTime {
    if (!this.ended) return [-1, -1];
    const [startSeconds, startNanos] = hrTimeOf(this.startMs);
    const [endSeconds, endNanos] = hrTimeOf(this.endMs);
    const nanos = (endSeconds - startSeconds) * 1e9 + (endNanos - startNanos);
    return [Math.floor(nanos / 1e9), nanos % 1e9];
  }

  isRecording(): boolean {
    return !this.ended;
  }

  /** True (and a warning) if the span has ended: nothing may change it then. */
  private endedAlready(): boolean {
    if (!this.ended) return false;
    diag.warn(
      `Cannot execute the operation on ended Span {traceId: ${this.context.traceId}, spanId: ${this.context.spanId}}`,
    );
    return true;
  }

  setAttribute(key: string, value: SpanAttributeValue): this {
    if (this.endedAlready()) return this;
    const decision = maybeAddAttribute({
      key,
      value,
      attributes: this.attributes,
      limits: LIMITS,
      currentAttributesCount: this.attributeCount,
    });
    if (decision === AddAttributeDecision.ADD_NEW) this.attributeCount++;
    else if (decision === AddAttributeDecision.DROP_LIMIT_REACHED && this.droppedAttributesCount++ === 0)
      diag.warn('Dropping extra attributes.');
    return this;
  }

  setAttributes(attributes: Attributes): this {
    for (const key in attributes) {
      if (Object.prototype.hasOwnProperty.call(attributes, key)) this.setAttribute(key, attributes[key]);
    }
    return this;
  }

  addEvent(name: string, attributesOrStartTime?: Attributes | TimeInput, startTime?: TimeInput): this {
    if (this.endedAlready()) return this;
    let attributes: Attributes | undefined;
    let time = startTime;
    if (isTimeInput(attributesOrStartTime)) {
      if (!isTimeInput(time)) time = attributesOrStartTime;
    } else attributes = attributesOrStartTime;
    if (this.events.length >= LIMIT) {
      this.events.shift();
      this.droppedEventsCount++;
    }
    this.events.push({
      name,
      time: hrTimeOf(time === undefined ? nowMs() : msOf(time)),
      ...cleanSimpleAttributes(attributes, LIMITS),
    });
    return this;
  }

  addLink(link: Link): this {
    if (this.endedAlready()) return this;
    if (this.links.length >= LIMIT) {
      this.links.shift();
      this.droppedLinksCount++;
    }
    this.links.push(linkOf(link));
    return this;
  }

  addLinks(links: Link[]): this {
    for (const link of links) this.addLink(link);
    return this;
  }

  setStatus(status: SpanStatus): this {
    if (this.endedAlready()) return this;
    if (status.code === SpanStatusCode.UNSET || this.status.code === SpanStatusCode.OK) return this;
    const next: SpanStatus = { code: status.code };
    if (status.code === SpanStatusCode.ERROR && typeof status.message === 'string')
      next.message = status.message;
    this.status = next;
    return this;
  }

  updateName(name: string): this {
    if (this.endedAlready()) return this;
    this.name = name;
    return this;
  }

  recordException(exception: Exception, time?: TimeInput): void {
    const attributes: Attributes = {};
    if (typeof exception === 'string') attributes['exception.message'] = exception;
    else if (exception) {
      const code = (exception as { code?: unknown }).code;
      if (code) attributes['exception.type'] = String(code);
      else if (exception.name) attributes['exception.type'] = exception.name;
      if (exception.message) attributes['exception.message'] = exception.message;
      if (exception.stack) attributes['exception.stacktrace'] = exception.stack;
    }
    if (attributes['exception.type'] !== undefined || attributes['exception.message'] !== undefined)
      this.addEvent('exception', attributes, time);
    else diag.warn(`Failed to record an exception ${String(exception)}`);
  }

  end(endTime?: TimeInput): void {
    if (this.endedAlready()) {
      diag.error(
        `${this.name} ${this.context.traceId}-${this.context.spanId} - You can only call end() on a span once.`,
      );
      return;
    }
    let endMs = endTime === undefined ? nowMs() : msOf(endTime);
    if (endMs < this.startMs) {
      diag.warn('Inconsistent start and end time, startTime > endTime. Setting span duration to 0ms.');
      endMs = this.startMs;
    }
    if (this.droppedEventsCount > 0)
      diag.warn(`Dropped ${this.droppedEventsCount} events because eventCountLimit reached`);
    if (this.droppedLinksCount > 0)
      diag.warn(`Dropped ${this.droppedLinksCount} links because linkCountLimit reached`);
    const processors = this.processors;
    for (let i = 0; i < processors.length; i++) processors[i]!.onEnding?.(this);
    this.endMs = endMs;
    for (let i = 0; i < processors.length; i++) processors[i]!.onEnd(this);
  }
}

// ---- tracer and provider --------------------------------------------------------------------------

class LeanTracer implements Tracer {
  constructor(
    private readonly scope: InstrumentationScope,
    private readonly provider: LeanTracerProvider,
  ) {}

  startSpan(name: string, options: SpanOptions = {}, ctx: Context = apiContext.active()): ApiSpan {
    if (isTracingSuppressed(ctx)) return trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
    const parentSpan = options.root ? undefined : trace.getSpan(ctx);
    const parentContext = parentSpan?.spanContext();
    // Ours are valid by construction; a remote or non-recording parent's context is checked.
    const parent =
      parentContext && (parentSpan instanceof LeanSpan || isSpanContextValid(parentContext))
        ? parentContext
        : undefined;
    const traceId = parent ? parent.traceId : newId(16);
    const spanId = newId(8);
    const kind = options.kind ?? SpanKind.INTERNAL;
    let links: Link[] = [];
    let droppedLinksCount = 0;
    if (options.links) {
      const given = options.links;
      const kept = given.length > LIMIT ? given.slice(given.length - LIMIT) : given;
      droppedLinksCount = given.length - kept.length;
      links = kept.map(linkOf);
    }
    const cleaned = cleanAttributes(options.attributes, LIMITS);
    const samplingContext = options.root ? trace.deleteSpan(ctx) : ctx;
    const sampling = this.provider.sampler.shouldSample(
      samplingContext,
      traceId,
      name,
      kind,
      cleaned.attributes ?? {},
      links,
    );
    const traceState = sampling.traceState ?? parent?.traceState;
    const spanContext: SpanContext = {
      traceId,
      spanId,
      traceFlags:
        sampling.decision === SamplingDecision.RECORD_AND_SAMPLED ? TraceFlags.SAMPLED : TraceFlags.NONE,
      ...(traceState ? { traceState } : {}),
    };
    if (sampling.decision === SamplingDecision.NOT_RECORD) return trace.wrapSpanContext(spanContext);
    const span = new LeanSpan({
      name,
      kind,
      spanContext,
      parentSpanContext: parent,
      attributes: cleaned.attributes ?? {},
      droppedAttributesCount: cleaned.droppedAttributesCount ?? 0,
      links,
      droppedLinksCount,
      startMs: options.startTime === undefined ? nowMs() : msOf(options.startTime),
      resource: this.provider.resource,
      scope: this.scope,
      processors: this.provider.processors,
    });
    // A sampler's own attributes (none of the SDK's samplers adds any) join the span's.
    if (sampling.attributes) span.setAttributes(sampling.attributes);
    const processors = this.provider.processors;
    for (let i = 0; i < processors.length; i++) processors[i]!.onStart(span, ctx);
    return span;
  }

  startActiveSpan<F extends (span: ApiSpan) => unknown>(name: string, fn: F): ReturnType<F>;
  startActiveSpan<F extends (span: ApiSpan) => unknown>(
    name: string,
    options: SpanOptions,
    fn: F,
  ): ReturnType<F>;
  startActiveSpan<F extends (span: ApiSpan) => unknown>(
    name: string,
    options: SpanOptions,
    ctx: Context,
    fn: F,
  ): ReturnType<F>;
  startActiveSpan<F extends (span: ApiSpan) => unknown>(
    name: string,
    a?: SpanOptions | F,
    b?: Context | F,
    c?: F,
  ): ReturnType<F> {
    let options: SpanOptions | undefined;
    let ctx: Context | undefined;
    let fn: F;
    if (typeof a === 'function') fn = a;
    else if (typeof b === 'function') {
      options = a;
      fn = b;
    } else {
      options = a;
      ctx = b;
      fn = c!;
    }
    const parent = ctx ?? apiContext.active();
    const span = this.startSpan(name, options, parent);
    return apiContext.with(trace.setSpan(parent, span), () => fn(span) as ReturnType<F>);
  }
}

export interface LeanTracerProviderOptions {
  /** `service.name` and the rest; the SDK's default resource when not given. */
  resource?: Resource;
  sampler: Sampler;
  spanProcessors: SpanProcessor[];
}

export class LeanTracerProvider implements TracerProvider {
  readonly resource: Resource;
  readonly sampler: Sampler;
  readonly processors: readonly SpanProcessor[];
  private readonly tracers = new Map<string, LeanTracer>();

  constructor(options: LeanTracerProviderOptions) {
    this.resource = options.resource ?? defaultResource();
    this.sampler = options.sampler;
    this.processors = [...options.spanProcessors];
  }

  getTracer(name: string, version?: string, options?: { schemaUrl?: string }): Tracer {
    const key = `${name}@${version ?? ''}:${options?.schemaUrl ?? ''}`;
    let tracer = this.tracers.get(key);
    if (!tracer) {
      const scope: InstrumentationScope = { name, version, schemaUrl: options?.schemaUrl };
      this.tracers.set(key, (tracer = new LeanTracer(scope, this)));
    }
    return tracer;
  }

  /** Sends every span ended so far (each processor's forceFlush). */
  async forceFlush(): Promise<void> {
    await Promise.all(this.processors.map((p) => p.forceFlush()));
  }

  async shutdown(): Promise<void> {
    await Promise.all(this.processors.map((p) => p.shutdown()));
  }
}
