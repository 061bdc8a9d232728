import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  extractTraceContext,
  injectTraceHeaders,
  startInMemoryTracing,
  startProducerSpan,
  withConsumerSpan,
  withProducerSpan,
  type InMemoryTracing,
} from '../src';

let tracing: InMemoryTracing;
beforeAll(() => {
  tracing = startInMemoryTracing();
});
afterAll(() => tracing.shutdown());
beforeEach(() => tracing.reset());

const tracer = () => trace.getTracer('test');

function inRequestSpan<T>(fn: () => Promise<T>): Promise<{ traceId: string; result: T }> {
  return tracer().startActiveSpan('POST /v1/orders', async (span) => {
    const result = await fn();
    span.end();
    return { traceId: span.spanContext().traceId, result };
  });
}

describe('trace context through Kafka headers', () => {
  it('injects nothing outside a span and the traceparent of the active span inside one', async () => {
    expect(injectTraceHeaders()).toEqual({});
    const { traceId, result } = await inRequestSpan(async () => injectTraceHeaders());
    expect(result.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
  });

  it('a consumer span continues the producer span of the message (headers read back as Buffers)', async () => {
    const { traceId, result: sent } = await inRequestSpan(() =>
      withProducerSpan('ordering.orders.v1 publish', undefined, async (headers) => headers, {
        'messaging.destination.name': 'ordering.orders.v1',
      }),
    );
    const received = Object.fromEntries(Object.entries(sent).map(([k, v]) => [k, Buffer.from(v)]));
    const seenTraceId = await withConsumerSpan(
      'ordering.orders.v1 process',
      received,
      async () => trace.getActiveSpan()!.spanContext().traceId,
    );

    const producer = tracing.spans().find((s) => s.kind === SpanKind.PRODUCER)!;
    const consumer = tracing.spans().find((s) => s.kind === SpanKind.CONSUMER)!;
    expect(seenTraceId).toBe(traceId);
    expect(producer.spanContext().traceId).toBe(traceId);
    expect(consumer.spanContext().traceId).toBe(traceId);
    expect(consumer.parentSpanContext?.spanId).toBe(producer.spanContext().spanId);
    expect(producer.attributes['messaging.destination.name']).toBe('ordering.orders.v1');
  });

  it('a producer span can continue headers captured earlier (an outbox row), outside any active span', async () => {
    const { traceId, result: captured } = await inRequestSpan(async () => injectTraceHeaders());
    expect(trace.getActiveSpan()).toBeUndefined();
    const { span, headers } = startProducerSpan('publish', captured);
    span.end();
    expect(span.spanContext().traceId).toBe(traceId);
    expect(headers.traceparent).toContain(span.spanContext().spanId);
  });

  it('a message without trace headers starts a new trace, unrelated to whatever is active', async () => {
    const { traceId, result: consumerTraceId } = await inRequestSpan(() =>
      withConsumerSpan(
        'process',
        { 'event-type': 'order.approved' },
        async (span) => span.spanContext().traceId,
      ),
    );
    expect(consumerTraceId).toMatch(/^[0-9a-f]{32}$/);
    expect(consumerTraceId).not.toBe(traceId);
    expect(trace.getSpanContext(extractTraceContext(undefined))).toBeUndefined();
  });

  it('records a failing handler on the consumer span and rethrows', async () => {
    await expect(
      withConsumerSpan('process', {}, async () => {
        throw new Error('database is down');
      }),
    ).rejects.toThrow('database is down');
    const [span] = tracing.spans();
    expect(span!.status).toEqual({ code: SpanStatusCode.ERROR, message: 'database is down' });
    expect(span!.events.map((e) => e.name)).toContain('exception');
  });
});
