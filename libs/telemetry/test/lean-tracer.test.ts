// The platform's tracer must record what the SDK's tracer records: the same flows run through both,
// and every finished span (names, kinds, parents, attributes, events, links, status, limits, scope,
// resource) must match, ids and times aside. Then what only ours decides: its ids, times and the
// calls it makes to span processors.
import {
  diag,
  DiagLogLevel,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
  type Attributes,
  type HrTime,
  type Tracer,
  type TracerProvider as ApiTracerProvider,
} from '@opentelemetry/api';
import { suppressTracing, TraceState } from '@opentelemetry/core';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ZipkinExporter } from '@opentelemetry/exporter-zipkin';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOnSampler,
  BatchSpanProcessor,
  InMemorySpanExporter,
  ParentBasedSampler,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  TracerProvider,
  type ReadableSpan,
  type Sampler,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';
import { LeanTracerProvider } from '../src/lean-tracer';

const resource = resourceFromAttributes({ 'service.name': 'orders', 'deployment.environment': 'test' });

function both(sampler: Sampler = new ParentBasedSampler({ root: new AlwaysOnSampler() })) {
  const make = (Provider: typeof TracerProvider | typeof LeanTracerProvider) => {
    const exporter = new InMemorySpanExporter();
    const provider = new Provider({
      resource,
      sampler,
      spanProcessors: [new SimpleSpanProcessor({ exporter })],
    });
    return { provider: provider as ApiTracerProvider, exporter };
  };
  return { sdk: make(TracerProvider), lean: make(LeanTracerProvider) };
}

const remoteParent = trace.setSpanContext(ROOT_CONTEXT, {
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: 'b7ad6b7169203331',
  traceFlags: TraceFlags.SAMPLED,
  isRemote: true,
  traceState: new TraceState('vendor=value'),
});

/** A span as a reader sees it, ids replaced by their order of appearance and times left out. */
function view(spans: ReadableSpan[]) {
  const ids = new Map<string, string>();
  const id = (value: string | undefined) => {
    if (value === undefined) return undefined;
    if (!ids.has(value)) ids.set(value, `#${ids.size}`);
    return ids.get(value);
  };
  return spans.map((s) => ({
    name: s.name,
    kind: s.kind,
    traceId: id(s.spanContext().traceId),
    spanId: id(s.spanContext().spanId),
    traceFlags: s.spanContext().traceFlags,
    traceState: s.spanContext().traceState?.serialize(),
    parent: id(s.parentSpanContext?.spanId),
    parentRemote: s.parentSpanContext?.isRemote,
    attributes: s.attributes,
    droppedAttributesCount: s.droppedAttributesCount,
    events: s.events.map((e) => ({
      name: e.name,
      // Stack traces name the line of each tracer's call.
      attributes: {
        ...e.attributes,
        'exception.stacktrace': String(e.attributes?.['exception.stacktrace']).split('\n')[0],
      },
      droppedAttributesCount: e.droppedAttributesCount ?? 0,
    })),
    droppedEventsCount: s.droppedEventsCount,
    links: s.links.map((l) => ({
      traceId: id(l.context.traceId),
      spanId: id(l.context.spanId),
      attributes: l.attributes ?? {},
      droppedAttributesCount: l.droppedAttributesCount ?? 0,
    })),
    droppedLinksCount: s.droppedLinksCount,
    status: s.status,
    ended: s.ended,
    scope: { name: s.instrumentationScope.name, version: s.instrumentationScope.version },
    resource: s.resource.attributes,
  }));
}

/** How many warnings and errors `fn` reported through OpenTelemetry's diag logger. */
function complaints(fn: () => void): number {
  let count = 0;
  const count1 = () => void count++;
  const ignore = () => {};
  diag.setLogger(
    { error: count1, warn: count1, info: ignore, debug: ignore, verbose: ignore },
    { logLevel: DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
  try {
    fn();
  } finally {
    diag.disable();
  }
  return count;
}

function expectSameRecord(flow: (tracer: Tracer) => void, sampler?: Sampler): ReadableSpan[] {
  const { sdk, lean } = both(sampler);
  const sdkComplaints = complaints(() => flow(sdk.provider.getTracer('ordering', '1.0.0')));
  const leanComplaints = complaints(() => flow(lean.provider.getTracer('ordering', '1.0.0')));
  const recorded = lean.exporter.getFinishedSpans();
  expect(view(recorded)).toEqual(view(sdk.exporter.getFinishedSpans()));
  expect(leanComplaints).toBe(sdkComplaints);
  return recorded;
}

describe('the platform tracer records what the SDK tracer records', () => {
  it('a request: a SERVER span continuing a remote parent, children, renamed, with status', () => {
    const recorded = expectSameRecord((tracer) => {
      const root = tracer.startSpan(
        'GET',
        {
          kind: SpanKind.SERVER,
          attributes: { 'http.request.method': 'GET', 'ordering.request_id': 'req_1' },
        },
        remoteParent,
      );
      const ctx = trace.setSpan(remoteParent, root);
      tracer.startSpan('gateway admission', {}, ctx).end();
      const forward = tracer.startSpan('forward orders', { kind: SpanKind.CLIENT }, ctx);
      forward.setAttribute('http.response.status_code', 503);
      forward.setStatus({ code: SpanStatusCode.ERROR, message: 'unavailable' });
      forward.setStatus({ code: SpanStatusCode.UNSET });
      forward.end();
      root.updateName('GET /v1/orders/{order_id}');
      root.setAttributes({ 'http.route': '/v1/orders/{order_id}', 'ordering.order_id': 'ord_1' });
      root.setStatus({ code: SpanStatusCode.OK });
      root.setStatus({ code: SpanStatusCode.ERROR, message: 'after OK: ignored' });
      root.end();
    });
    expect(recorded.map((s) => s.name)).toEqual([
      'gateway admission',
      'forward orders',
      'GET /v1/orders/{order_id}',
    ]);
    expect(recorded[2]!.spanContext().traceId).toBe('0af7651916cd43dd8448eb211c80319c');
  });

  it('attribute values: valid ones kept, invalid ones dropped, null and undefined ignored', () => {
    expectSameRecord((tracer) => {
      const span = tracer.startSpan('values', {
        attributes: {
          text: 'plain',
          int: 42,
          float: 1.5,
          bool: false,
          strings: ['a', 'b'],
          withGaps: ['a', null, undefined, 'b'] as unknown as string[],
          empty: [],
          mixed: ['a', 1] as unknown as string[],
          nested: [['a']] as unknown as string[],
          object: { a: 1, b: [true] } as unknown as string,
          nothing: null as unknown as string,
          missing: undefined,
          symbol: Symbol('no') as unknown as string,
        },
      });
      span.setAttribute('later', 'yes');
      span.setAttribute('function', (() => 1) as unknown as string);
      span.setAttribute('', 'no key');
      span.setAttribute('nothing', undefined as unknown as string);
      span.setAttributes({ more: 1, text: 'replaced' });
      span.addEvent('event values', {
        ok: 'yes',
        list: [1, 2],
        mixed: ['a', 1] as unknown as string[],
        map: { a: 1 } as unknown as string,
      });
      span.end();
    });
  });

  it('limits: 128 attributes, events and links per span and 128 attributes per event and link', () => {
    const many = (n: number, prefix: string): Attributes =>
      Object.fromEntries(Array.from({ length: n }, (_, i) => [`${prefix}${i}`, i]));
    const recorded = expectSameRecord((tracer) => {
      const link = { context: trace.getSpanContext(remoteParent)!, attributes: many(130, 'l') };
      const span = tracer.startSpan('limits', {
        attributes: many(100, 'a'),
        links: Array.from({ length: 129 }, () => link),
      });
      span.setAttributes(many(40, 'b'));
      span.setAttribute('a0', 'an existing key is replaced even at the limit');
      for (let i = 0; i < 131; i++) span.addEvent(`event ${i}`, many(i === 130 ? 130 : 1, 'e'));
      span.addLink(link);
      span.end();
    });
    expect(recorded[0]!.droppedAttributesCount).toBe(12);
    expect(recorded[0]!.droppedEventsCount).toBe(3);
    expect(recorded[0]!.droppedLinksCount).toBe(2);
  });

  it('exceptions: an Error, an error with a code, a string', () => {
    expectSameRecord((tracer) => {
      const span = tracer.startSpan('failing');
      span.recordException(new TypeError('bad input'));
      span.recordException(Object.assign(new Error('refused'), { code: 'ECONNREFUSED' }));
      span.recordException('plain words');
      span.end();
    });
  });

  it("the caller's objects are copied: changing them later changes no span", () => {
    const recorded = expectSameRecord((tracer) => {
      const attributes: Attributes = { 'ordering.service': 'orders' };
      const list = ['a', 'b'];
      const span = tracer.startSpan('copied', { attributes });
      span.setAttribute('list', list);
      attributes['ordering.service'] = 'changed';
      list.push('c');
      span.setAttribute('own', 1);
      span.end();
      expect(attributes).toEqual({ 'ordering.service': 'changed' });
    });
    expect(recorded[0]!.attributes).toEqual({ 'ordering.service': 'orders', list: ['a', 'b'], own: 1 });
  });

  it('nothing changes after end(), and a second end() is no second span', () => {
    const recorded = expectSameRecord((tracer) => {
      const span = tracer.startSpan('ended');
      span.end();
      span.setAttribute('late', true);
      span.addEvent('late');
      span.setStatus({ code: SpanStatusCode.ERROR });
      span.updateName('renamed');
      span.end();
      expect(span.isRecording()).toBe(false);
    });
    expect(recorded).toHaveLength(1);
  });

  it('root spans ignore the active parent; a tracer of another name is its own scope', () => {
    expectSameRecord((tracer) => {
      const parent = tracer.startSpan('parent');
      tracer.startSpan('root', { root: true }, trace.setSpan(ROOT_CONTEXT, parent)).end();
      parent.end();
    });
    const { lean } = both();
    lean.provider.getTracer('kafka').startSpan('consume').end();
    expect(lean.exporter.getFinishedSpans()[0]!.instrumentationScope.name).toBe('kafka');
  });
});

describe('sampling', () => {
  it('a request sampled out is a non-recording span with ids, and its children follow it', () => {
    const { lean } = both(new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(0) }));
    const tracer = lean.provider.getTracer('ordering');
    const root = tracer.startSpan('GET');
    expect(root.isRecording()).toBe(false);
    expect(root.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(root.spanContext().spanId).toMatch(/^[0-9a-f]{16}$/);
    expect(root.spanContext().traceFlags).toBe(TraceFlags.NONE);
    const child = tracer.startSpan('child', {}, trace.setSpan(ROOT_CONTEXT, root));
    expect(child.isRecording()).toBe(false);
    expect(child.spanContext().traceId).toBe(root.spanContext().traceId);
    child.end();
    root.end();
    // A sampled remote parent is followed even at ratio 0.
    const continued = tracer.startSpan('continued', {}, remoteParent);
    expect(continued.isRecording()).toBe(true);
    expect(continued.spanContext().traceState?.serialize()).toBe('vendor=value');
    continued.end();
    expect(lean.exporter.getFinishedSpans().map((s) => s.name)).toEqual(['continued']);
  });

  it('with tracing suppressed (an exporter sending spans) the span is the invalid one', () => {
    const { lean } = both();
    const span = lean.provider.getTracer('ordering').startSpan('export', {}, suppressTracing(ROOT_CONTEXT));
    expect(span.isRecording()).toBe(false);
    expect(trace.isSpanContextValid(span.spanContext())).toBe(false);
    span.end();
    expect(lean.exporter.getFinishedSpans()).toHaveLength(0);
  });

  it('ids are distinct random hex of the W3C sizes', () => {
    const { lean } = both();
    const tracer = lean.provider.getTracer('ordering');
    const traceIds = new Set<string>();
    const spanIds = new Set<string>();
    for (let i = 0; i < 5000; i++) {
      const span = tracer.startSpan('s');
      traceIds.add(span.spanContext().traceId);
      spanIds.add(span.spanContext().spanId);
      expect(trace.isSpanContextValid(span.spanContext())).toBe(true);
      span.end();
    }
    expect(traceIds.size).toBe(5000);
    expect(spanIds.size).toBe(5000);
  });
});

describe('times', () => {
  const ms = (t: HrTime) => t[0] * 1000 + t[1] / 1e6;

  it('start and end are wall-clock times of the calls, the duration their difference', async () => {
    const { lean } = both();
    const before = Date.now();
    const span = lean.provider.getTracer('ordering').startSpan('timed');
    await new Promise((resolve) => setTimeout(resolve, 25));
    span.end();
    const after = Date.now();
    const [recorded] = lean.exporter.getFinishedSpans();
    const start = ms(recorded!.startTime);
    const end = ms(recorded!.endTime);
    // Within what the tracer promises: it follows the wall clock to within 1 ms, checked once a
    // second, from an offset taken with Date.now()'s whole milliseconds (a loaded machine's clock
    // was seen 3 ms off the monotonic one).
    const clockTolerance = 5;
    expect(start).toBeGreaterThanOrEqual(before - clockTolerance);
    expect(end).toBeLessThanOrEqual(after + clockTolerance);
    expect(end - start).toBeGreaterThanOrEqual(20);
    expect(ms(recorded!.duration)).toBeCloseTo(end - start, 3);
    for (const t of [recorded!.startTime, recorded!.endTime, recorded!.duration]) {
      expect(Number.isInteger(t[0]) && Number.isInteger(t[1])).toBe(true);
      expect(t[1]).toBeGreaterThanOrEqual(0);
      expect(t[1]).toBeLessThan(1e9);
    }
  });

  it('given times are kept (Date, epoch ms, HrTime); an end before the start is a zero duration', () => {
    const { lean } = both();
    const tracer = lean.provider.getTracer('ordering');
    tracer
      .startSpan('dates', { startTime: new Date('2026-11-25T01:00:00.000Z') })
      .end([1795572000, 500_000_000]);
    const epoch = Date.parse('2026-11-25T02:00:00.000Z');
    const reversed = tracer.startSpan('reversed', { startTime: epoch });
    reversed.addEvent('at a time', epoch + 5);
    reversed.end(epoch - 1000);
    const [dates, backwards] = lean.exporter.getFinishedSpans();
    expect(dates!.startTime).toEqual([1795568400, 0]);
    expect(dates!.endTime).toEqual([1795572000, 500_000_000]);
    expect(dates!.duration).toEqual([3600, 500_000_000]);
    expect(backwards!.startTime).toEqual([epoch / 1000, 0]);
    expect(backwards!.events[0]!.time).toEqual([epoch / 1000, 5_000_000]);
    expect(backwards!.duration).toEqual([0, 0]);
  });
});

describe('export to Zipkin (the local trace viewer)', () => {
  it('sends whole microseconds, which Zipkin requires (a fraction made it refuse the batch)', async () => {
    const received: unknown[] = [];
    const zipkin = http.createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString()));
      req.on('end', () => {
        received.push(...(JSON.parse(body) as unknown[]));
        res.writeHead(202).end();
      });
    });
    await new Promise<void>((resolve) => zipkin.listen(0, '127.0.0.1', resolve));
    const url = `http://127.0.0.1:${(zipkin.address() as AddressInfo).port}/api/v2/spans`;
    const provider = new LeanTracerProvider({
      resource,
      sampler: new AlwaysOnSampler(),
      spanProcessors: [new BatchSpanProcessor({ exporter: new ZipkinExporter({ url }) })],
    });
    try {
      const tracer = provider.getTracer('ordering');
      for (let i = 0; i < 50; i++) {
        const root = tracer.startSpan('GET', { kind: SpanKind.SERVER });
        const child = tracer.startSpan(
          'forward orders',
          { kind: SpanKind.CLIENT },
          trace.setSpan(ROOT_CONTEXT, root),
        );
        child.addEvent('retry');
        await new Promise((resolve) => setImmediate(resolve));
        child.end();
        root.end();
      }
      await provider.forceFlush();
    } finally {
      await provider.shutdown();
      zipkin.close();
    }
    const spans = received as {
      timestamp: number;
      duration: number;
      parentId?: string;
      annotations?: { timestamp: number }[];
    }[];
    expect(spans).toHaveLength(100);
    expect(spans.filter((s) => s.parentId !== undefined)).toHaveLength(50);
    for (const span of spans) {
      expect(Number.isInteger(span.timestamp)).toBe(true);
      expect(Number.isInteger(span.duration)).toBe(true);
      for (const annotation of span.annotations ?? [])
        expect(Number.isInteger(annotation.timestamp)).toBe(true);
    }
  });
});

describe('span processors', () => {
  it('each sees a recorded span start and end once, and never a span sampled out', async () => {
    const seen: string[] = [];
    const processor: SpanProcessor = {
      onStart: (span) => seen.push(`start ${span.name}`),
      onEnding: (span) => seen.push(`ending ${span.name} ${span.ended}`),
      onEnd: (span) => seen.push(`end ${span.name} ${span.ended}`),
      forceFlush: async () => void seen.push('flush'),
      shutdown: async () => void seen.push('shutdown'),
    };
    const provider = new LeanTracerProvider({
      sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }),
      spanProcessors: [processor],
    });
    const tracer = provider.getTracer('ordering');
    const span = tracer.startSpan('kept');
    span.end();
    span.end();
    new LeanTracerProvider({
      sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(0) }),
      spanProcessors: [processor],
    })
      .getTracer('ordering')
      .startSpan('sampled out')
      .end();
    await provider.forceFlush();
    await provider.shutdown();
    expect(seen).toEqual(['start kept', 'ending kept false', 'end kept true', 'flush', 'shutdown']);
  });
});
