// What every service built on createApp gives on-call without code of its own: a SERVER span that
// continues the caller's trace, named after the route template, with the route's ids as attributes;
// the trace named in `traceresponse`; the log lines of the request carrying its trace id; and the
// request metrics on /metrics.
import { SpanKind } from '@opentelemetry/api';
import express from 'express';
import request from 'supertest';
import {
  parseTraceResponse,
  startInMemoryTracing,
  startTestMetrics,
  type InMemoryTracing,
  type TestMetrics,
} from '@ordering/telemetry';
import { createApp } from '../src';
import { captureLogs } from './log-capture';

let tracing: InMemoryTracing;
let metrics: TestMetrics;
beforeAll(() => {
  tracing = startInMemoryTracing();
  metrics = startTestMetrics();
});
afterAll(async () => {
  await tracing.shutdown();
  await metrics.shutdown();
});
beforeEach(() => tracing.reset());

function app() {
  const logs = captureLogs('orders', 'info');
  const built = createApp({
    service: 'orders',
    logger: logs.logger,
    routes: (a) => {
      const router = express.Router();
      router.get('/v1/orders/:id', (req, res) => {
        req.log.info('reading the order');
        res.json({ id: req.params.id });
      });
      a.use(router);
    },
  });
  return { app: built, logs };
}

async function serverSpan(traceId: string) {
  for (let i = 0; i < 50; i++) {
    const span = tracing
      .spans()
      .find((s) => s.kind === SpanKind.SERVER && s.spanContext().traceId === traceId);
    if (span) return span;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error('no server span');
}

describe('a request to a service', () => {
  it("continues the caller's trace in a span named after its route, and names it in traceresponse", async () => {
    const { app: a, logs } = app();
    const caller = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const res = await request(a)
      .get('/v1/orders/ord_7')
      .set('traceparent', caller)
      .set('X-Request-Id', 'req_abc')
      .expect(200);
    const named = parseTraceResponse(res.headers.traceresponse)!;
    expect(named.traceId).toBe('4bf92f3577b34da6a3ce929d0e0e4736');
    const span = await serverSpan(named.traceId);
    expect(span.name).toBe('GET /v1/orders/{id}');
    expect(span.spanContext().spanId).toBe(named.spanId);
    expect(span.parentSpanContext?.spanId).toBe('00f067aa0ba902b7');
    expect(span.attributes).toMatchObject({
      'ordering.request_id': 'req_abc',
      'ordering.order_id': 'ord_7',
      'http.route': '/v1/orders/{id}',
      'http.response.status_code': 200,
    });
    // The route's own log line and the access line both carry the trace id.
    const lines = logs.lines().filter((l) => l.request_id === 'req_abc');
    expect(lines.map((l) => l.trace_id)).toEqual([named.traceId, named.traceId]);
  });

  it('a caller that sampled the request out is followed: no span recorded, the trace still named', async () => {
    const { app: a } = app();
    const res = await request(a)
      .get('/v1/orders/ord_8')
      .set('traceparent', '00-5bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-00')
      .expect(200);
    expect(parseTraceResponse(res.headers.traceresponse)).toMatchObject({
      traceId: '5bf92f3577b34da6a3ce929d0e0e4736',
      sampled: false,
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(tracing.spans()).toHaveLength(0);
  });

  it('probes are not traced; unknown paths share one route label; /metrics has the requests by route', async () => {
    const { app: a } = app();
    const probe = await request(a).get('/healthz').expect(200);
    expect(probe.headers.traceresponse).toBeUndefined();
    await request(a).get('/v1/nothing/here/123').expect(404);
    await request(a).get('/v1/orders/ord_9').expect(200);
    const text = await metrics.text();
    expect(text).toMatch(
      /http_server_request_duration_count\{http_request_method="GET",http_route="unmatched",http_response_status_code="404"[^}]*\} [1-9]/,
    );
    expect(text).toMatch(
      /http_server_request_duration_count\{http_request_method="GET",http_route="\/v1\/orders\/\{id\}",http_response_status_code="200"[^}]*\} [1-9]/,
    );
    expect(text).not.toContain('/healthz');
  });
});
