// What an on-call engineer gets from the gateway for each request: one trace the gateway starts
// (a client's traceparent is only linked), spans for admission and forwarding, the service asked to
// continue the forwarding span, the trace named in `traceresponse`, and per-route metrics.
import { SpanKind } from '@opentelemetry/api';
import request from 'supertest';
import {
  parseTraceResponse,
  startInMemoryTracing,
  startTestMetrics,
  type InMemoryTracing,
  type TestMetrics,
} from '@ordering/telemetry';
import { ROUTES, openApiDocument } from '../src';
import { type Harness, startHarness } from './support/gateway-harness';

let tracing: InMemoryTracing;
let metrics: TestMetrics;
let h: Harness;
let token: string;

beforeAll(async () => {
  tracing = startInMemoryTracing();
  metrics = startTestMetrics();
  h = await startHarness({ env: { RATE_LIMIT_CAPACITY: '2', RATE_LIMIT_REFILL_PER_SECOND: '1' } });
  token = h.issuer.mint({ scope: 'orders:read', cust_id: 'ACME' });
});
afterAll(async () => {
  await h.stop();
  await tracing.shutdown();
  await metrics.shutdown();
});
beforeEach(() => tracing.reset());

/** Spans end just after the response is written: wait for the request's root span. */
async function spansOf(traceId: string) {
  for (let i = 0; i < 50; i++) {
    const spans = tracing.spans().filter((s) => s.spanContext().traceId === traceId);
    if (spans.some((s) => s.kind === SpanKind.SERVER)) return spans;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`no server span of trace ${traceId}`);
}

describe('a request through the gateway', () => {
  it('is one trace: server span (route, request id, cust_id, order id), admission and forwarding; the service continues the forwarding span', async () => {
    const clientTrace = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const res = await request(h.url)
      .get('/v1/orders/ord_42')
      .set('Authorization', `Bearer ${token}`)
      .set('traceparent', clientTrace)
      .expect(200);

    const named = parseTraceResponse(res.headers.traceresponse);
    expect(named).toMatchObject({ sampled: true });
    expect(named!.traceId).not.toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    const spans = await spansOf(named!.traceId);
    const server = spans.find((s) => s.kind === SpanKind.SERVER)!;
    const admission = spans.find((s) => s.name === 'gateway admission')!;
    const forward = spans.find((s) => s.kind === SpanKind.CLIENT)!;

    expect(server.name).toBe('GET /v1/orders/{id}');
    expect(server.spanContext().spanId).toBe(named!.spanId);
    expect(server.parentSpanContext).toBeUndefined();
    expect(server.attributes).toMatchObject({
      'ordering.request_id': res.headers['x-request-id'],
      'ordering.cust_id': 'ACME',
      'ordering.order_id': 'ord_42',
      'http.route': '/v1/orders/{id}',
      'http.response.status_code': 200,
    });
    // The client's own trace is kept as a link, not continued.
    expect(server.links.map((l) => l.context.traceId)).toEqual(['4bf92f3577b34da6a3ce929d0e0e4736']);
    expect(admission.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
    expect(forward.name).toBe('forward orders');
    expect(forward.parentSpanContext?.spanId).toBe(server.spanContext().spanId);

    const seen = h.upstreams.orders.received.at(-1)!.headers;
    expect(seen.traceparent).toBe(`00-${named!.traceId}-${forward.spanContext().spanId}-01`);
  });

  it("names the gateway's span in traceresponse, not the service's, and refusals have a trace too", async () => {
    h.upstreams.orders.behaviour = (_req, res) => {
      res.writeHead(200, { traceresponse: '00-11111111111111111111111111111111-2222222222222222-01' });
      res.end('{}');
    };
    try {
      const res = await request(h.url)
        .get('/v1/orders/o_1')
        .set('Authorization', `Bearer ${token}`)
        .expect(200);
      expect(res.headers.traceresponse).not.toContain('1111111111');
      expect(parseTraceResponse(res.headers.traceresponse)).toBeDefined();
    } finally {
      h.upstreams.orders.reset();
    }
    const refused = await request(h.url).get('/v1/orders/o_1').expect(401);
    const trace = parseTraceResponse(refused.headers.traceresponse)!;
    const spans = await spansOf(trace.traceId);
    expect(spans.find((s) => s.name === 'gateway admission')?.status.code).toBe(2);
  });

  it('traceresponse is declared in the OpenAPI document on its answers, in the format it has', async () => {
    const doc = openApiDocument(ROUTES, { authIssuer: h.issuer.issuer }) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
    const fresh = h.issuer.mint({ scope: 'orders:read', cust_id: 'ACME' });
    const res = await request(h.url)
      .get('/v1/orders/o_2')
      .set('Authorization', `Bearer ${fresh}`)
      .expect(200);
    const declared = doc.paths['/v1/orders/{id}'].get.responses['200'].headers.traceresponse;
    expect(declared).toEqual({ $ref: '#/components/headers/traceresponse' });
    const pattern = new RegExp(doc.components.headers.traceresponse.schema.pattern);
    expect(res.headers.traceresponse).toMatch(pattern);
  });

  it('counts requests per route and status, and rate-limit refusals, for Prometheus', async () => {
    const limited = h.issuer.mint({ scope: 'orders:read', cust_id: 'ACME' });
    let refused = 0;
    for (let i = 0; i < 5; i++) {
      const res = await request(h.url).get('/v1/orders/o_9').set('Authorization', `Bearer ${limited}`);
      if (res.status === 429) refused++;
    }
    expect(refused).toBeGreaterThan(0);
    const text = await metrics.text();
    expect(text).toMatch(
      /http_server_request_duration_count\{http_request_method="GET",http_route="\/v1\/orders\/\{id\}",http_response_status_code="429"[^}]*\} [1-9]/,
    );
    expect(text).toMatch(
      new RegExp(`ordering_gateway_rate_limit_refusals_total(\\{[^}]*\\})? [${refused}-9]`),
    );
  });
});
