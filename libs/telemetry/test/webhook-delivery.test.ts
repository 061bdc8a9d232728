import { SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import {
  injectTraceHeaders,
  recordDeliveryGivenUp,
  startInMemoryTracing,
  startTestMetrics,
  tracer,
  withWebhookAttemptSpan,
  type InMemoryTracing,
  type TestMetrics,
} from '../src';

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

const attempt = {
  deliveryId: 'dlv_1',
  eventId: 'evt_1',
  eventType: 'order.approved',
  subscriptionId: 'we_1',
  attempt: 2,
  url: 'https://receiver.example/hooks?token=secret',
};

describe('a webhook delivery attempt', () => {
  it('is a CLIENT span in the trace of its event (hours later too), searchable by delivery and event id', async () => {
    // The event's trace context, as the consumer kept it with the delivery.
    const { traceId, headers } = await tracer().startActiveSpan(
      'ordering.orders.v1 process',
      async (span) => {
        span.end();
        return { traceId: span.spanContext().traceId, headers: injectTraceHeaders() };
      },
    );
    await withWebhookAttemptSpan({ ...attempt, traceHeaders: headers }, async () => ({ statusCode: 204 }));
    const span = tracing.spans().find((s) => s.name === 'webhook order.approved attempt')!;
    expect(span.kind).toBe(SpanKind.CLIENT);
    expect(span.spanContext().traceId).toBe(traceId);
    expect(span.attributes).toMatchObject({
      'ordering.delivery_id': 'dlv_1',
      'ordering.event_id': 'evt_1',
      'ordering.subscription_id': 'we_1',
      'ordering.webhook.attempt': 2,
      'http.response.status_code': 204,
      // The origin only: a receiver's path or query may hold a token.
      'server.address': 'https://receiver.example',
    });
  });

  it('a receiver answering 500 or not at all is a failed attempt; outcomes and durations are metrics', async () => {
    await withWebhookAttemptSpan(attempt, async () => ({ statusCode: 500 }));
    await expect(
      withWebhookAttemptSpan(attempt, async () => {
        throw new Error('connect ETIMEDOUT');
      }),
    ).rejects.toThrow('ETIMEDOUT');
    await withWebhookAttemptSpan({ ...attempt, attempt: 1 }, async () => ({ statusCode: 500 }));
    recordDeliveryGivenUp({ eventType: 'order.approved' });
    const failed = tracing.spans().filter((s) => s.status.code === SpanStatusCode.ERROR);
    expect(failed).toHaveLength(3);
    const text = await metrics.text();
    expect(text).toMatch(
      /ordering_webhook_delivery_attempts_total\{outcome="success",status_class="2xx",event_type="order.approved"[^}]*\} 1/,
    );
    expect(text).toMatch(
      /ordering_webhook_delivery_attempts_total\{outcome="failure",status_class="5xx",event_type="order.approved"[^}]*\} 1/,
    );
    expect(text).toMatch(
      /ordering_webhook_delivery_attempts_total\{outcome="failure",status_class="none",event_type="order.approved"[^}]*\} 1/,
    );
    // First attempts apart from retries: the alert reads the first ones (a down receiver is retried ~14 times).
    expect(text).toMatch(
      /ordering_webhook_delivery_attempts_total\{outcome="failure",status_class="5xx",event_type="order.approved",attempt="first"[^}]*\} 1/,
    );
    expect(text).toMatch(
      /ordering_webhook_delivery_attempts_total\{outcome="failure",status_class="5xx",event_type="order.approved",attempt="retry"[^}]*\} 1/,
    );
    expect(text).toMatch(/ordering_webhook_delivery_duration_count\{outcome="failure"[^}]*\} 3/);
    expect(text).toMatch(/ordering_webhook_deliveries_failed_total\{event_type="order.approved"[^}]*\} 1/);
  });

  it('runs the send with its span active, so what is logged meanwhile carries its trace and span ids', async () => {
    const { headers } = await tracer().startActiveSpan('ordering.users.v1 process', async (span) => {
      span.end();
      return { headers: injectTraceHeaders() };
    });
    let active: { traceId: string; spanId: string } | undefined;
    let own: { traceId: string; spanId: string } | undefined;
    await withWebhookAttemptSpan(
      { ...attempt, eventType: 'webhook.test', traceHeaders: headers },
      async (span) => {
        await new Promise((r) => setTimeout(r, 1));
        active = trace.getActiveSpan()?.spanContext();
        own = span.spanContext();
        return { statusCode: 500 };
      },
    );
    expect(active).toMatchObject({ traceId: own!.traceId, spanId: own!.spanId });
    // Without the event's context, the attempt is a child of the active one.
    await tracer().startActiveSpan('outer', async (outer) => {
      await withWebhookAttemptSpan({ ...attempt, eventType: 'webhook.test' }, async () => {
        active = trace.getActiveSpan()?.spanContext();
        return { statusCode: 204 };
      });
      expect(active?.traceId).toBe(outer.spanContext().traceId);
      expect(active?.spanId).not.toBe(outer.spanContext().spanId);
      outer.end();
    });
  });
});
