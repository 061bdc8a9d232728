// The platform's OTLP protobuf encoding of spans must be exactly what the SDK's serializer writes:
// a collector decodes one like the other. Spans of every shape the SDK can finish are compared
// byte for byte, made by the SDK's tracer and by the platform's (lean-tracer.ts).
import {
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  TraceFlags,
  trace,
  type Attributes,
} from '@opentelemetry/api';
import { TraceState } from '@opentelemetry/core';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  AlwaysOnSampler,
  InMemorySpanExporter,
  ParentBasedSampler,
  SimpleSpanProcessor,
  TracerProvider,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace';
import { LeanTracerProvider } from '../src/lean-tracer';
import { serializeSpans } from '../src/otlp-span-serializer';

function expectSameBytes(spans: ReadableSpan[]): void {
  const reference = Buffer.from(ProtobufTraceSerializer.serializeRequest(spans)!);
  const ours = Buffer.from(serializeSpans(spans));
  expect(ours.length).toBe(reference.length);
  expect(ours.equals(reference)).toBe(true);
}

const remoteParent = trace.setSpanContext(ROOT_CONTEXT, {
  traceId: '0af7651916cd43dd8448eb211c80319c',
  spanId: 'b7ad6b7169203331',
  traceFlags: TraceFlags.SAMPLED,
  isRemote: true,
  traceState: new TraceState('vendor=value,other=1'),
});

describe.each([
  ['SDK', TracerProvider],
  ['platform', LeanTracerProvider],
] as const)('serializeSpans (OTLP protobuf) of spans of the %s tracer', (_name, Provider) => {
  function provider(service: string) {
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new Provider({
      resource: resourceFromAttributes({
        'service.name': service,
        'deployment.environment': 'test',
        pid: 42,
      }),
      sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }),
      spanProcessors: [new SimpleSpanProcessor({ exporter })],
    });
    return { tracerProvider, exporter };
  }

  it('writes the bytes of the SDK serializer for the gateway spans of a request', () => {
    const { tracerProvider, exporter } = provider('gateway');
    const tracer = tracerProvider.getTracer('ordering');
    const root = tracer.startSpan('GET', {
      kind: SpanKind.SERVER,
      attributes: { 'http.request.method': 'GET', 'ordering.request_id': 'req_abc' },
    });
    const ctx = trace.setSpan(ROOT_CONTEXT, root);
    tracer.startSpan('gateway admission', {}, ctx).end();
    const forward = tracer.startSpan('forward orders', { kind: SpanKind.CLIENT }, ctx);
    forward.setAttribute('http.response.status_code', 200);
    forward.end();
    root.updateName('GET /v1/orders/{id}');
    root.setAttributes({ 'http.route': '/v1/orders/{id}', 'ordering.order_id': 'ord_1' });
    root.end();
    expectSameBytes(exporter.getFinishedSpans());
  });

  it('writes every kind of attribute value, events, links, status and remote parents the same way', () => {
    const { tracerProvider, exporter } = provider('orders');
    const tracer = tracerProvider.getTracer('ordering', '1.2.3', {
      schemaUrl: 'https://opentelemetry.io/schemas/1.27.0',
    });
    const values: Attributes = {
      text: 'plain',
      unicode: 'Müller – 東京 🚀',
      long: 'x'.repeat(300),
      longUnicode: 'é'.repeat(100),
      empty: '',
      int: 42,
      negative: -7,
      big: 2 ** 40 + 3,
      huge: Number.MAX_SAFE_INTEGER,
      float: 1.5,
      negativeFloat: -0.25,
      bool: true,
      no: false,
      strings: ['a', 'b', 'ü'],
      numbers: [1, 2.5, -3],
      bools: [true, false],
      mixed: ['a', null, undefined] as unknown as string[],
    };
    for (const [kind, name] of [
      [SpanKind.INTERNAL, 'use case'],
      [SpanKind.SERVER, 'POST /v1/orders'],
      [SpanKind.CLIENT, 'SELECT orders'],
      [SpanKind.PRODUCER, 'orders.events publish'],
      [SpanKind.CONSUMER, 'orders.events process'],
    ] as const) {
      const span = tracer.startSpan(
        name,
        {
          kind,
          attributes: values,
          links: [
            { context: trace.getSpanContext(remoteParent)!, attributes: { 'ordering.link': 'client_trace' } },
            {
              context: {
                traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
                spanId: '00f067aa0ba902b7',
                traceFlags: TraceFlags.NONE,
              },
            },
          ],
        },
        remoteParent,
      );
      span.addEvent('retry', { attempt: 2, reason: 'timeout' });
      span.addEvent('plain');
      span.recordException(new Error('boom: ünicode'));
      span.setStatus({ code: SpanStatusCode.ERROR, message: 'failed' });
      span.end();
    }
    const ok = tracer.startSpan('ok', {});
    ok.setStatus({ code: SpanStatusCode.OK });
    ok.end();
    expectSameBytes(exporter.getFinishedSpans());
  });

  it('groups spans of several processes and scopes as the SDK does', () => {
    const a = provider('gateway');
    const b = provider('customers');
    for (const [p, scope] of [
      [a, 'ordering'],
      [b, 'ordering'],
      [a, 'kafka'],
      [b, 'pg'],
      [a, 'ordering'],
    ] as const) {
      p.tracerProvider.getTracer(scope).startSpan(`span of ${scope}`).end();
    }
    expectSameBytes([...a.exporter.getFinishedSpans(), ...b.exporter.getFinishedSpans()]);
  });

  it('writes lengths that need more or fewer bytes than reserved (large spans, batches) and an empty batch', () => {
    const { tracerProvider, exporter } = provider('catalog');
    const tracer = tracerProvider.getTracer('ordering');
    tracer.startSpan('large', { attributes: { query: 'q'.repeat(20_000) } }).end();
    tracer.startSpan('tiny').end();
    expectSameBytes(exporter.getFinishedSpans());
    for (let i = 0; i < 600; i++) {
      tracer.startSpan(`span ${i % 50}`, { attributes: { 'ordering.request_id': `req_${i}`, i } }).end();
    }
    expectSameBytes(exporter.getFinishedSpans());
    expectSameBytes([]);
  });

  it('returns a buffer of its own each time (an export in flight keeps its bytes)', () => {
    const { tracerProvider, exporter } = provider('gateway');
    tracerProvider.getTracer('ordering').startSpan('first').end();
    const first = serializeSpans(exporter.getFinishedSpans());
    const copy = Buffer.from(first);
    exporter.reset();
    tracerProvider.getTracer('ordering').startSpan('second, with another name').end();
    serializeSpans(exporter.getFinishedSpans());
    expect(Buffer.from(first).equals(copy)).toBe(true);
  });
});
