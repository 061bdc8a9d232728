// For the webhooks service's delivery worker: one CLIENT span per delivery attempt (a child of the
// trace of the event being delivered) and the delivery metrics the alerts read.
//
//   await withWebhookAttemptSpan(
//     { deliveryId, eventId, eventType, subscriptionId, attempt, url, traceHeaders: delivery.trace_context },
//     async (span) => send(...),      // resolves with { statusCode, error? }: statusCode null for no answer
//   );
//   recordDeliveryGivenUp({ eventType })   // when a delivery turns `failed` after its last retry
import { SpanKind, SpanStatusCode, context, trace, type Span } from '@opentelemetry/api';
import { ATTR } from './attributes';
import { extractTraceContext, type MessageHeaders } from './kafka-trace-context';
import { platformMetrics } from './platform-metrics';
import { recordError, tracer } from './spans';

export interface WebhookAttempt {
  deliveryId: string;
  eventId: string;
  eventType: string;
  subscriptionId: string;
  /** 1 for the first attempt (of the delivery, or since its last replay). */
  attempt: number;
  /** The delivery was replayed: its first attempt since is labelled `replay`, not `first`. */
  replayed?: boolean;
  /** The receiver's URL; only its origin is recorded (a path may hold a token). */
  url: string;
  /**
   * The trace context of the event (the Kafka message's headers, kept with the delivery): the
   * attempt joins that trace even when it runs hours later from a retry schedule. Without it, the
   * active context is the parent.
   */
  traceHeaders?: MessageHeaders;
}

function originOf(url: string): string {
  try {
    return new URL(url).origin;
  } catch {
    return 'invalid-url';
  }
}

/** The outcome's label: 2xx is success, everything else (other statuses, no answer) failure. */
function outcomeOf(status: number | undefined): { outcome: 'success' | 'failure'; statusClass: string } {
  if (status === undefined) return { outcome: 'failure', statusClass: 'none' };
  return {
    outcome: status >= 200 && status < 300 ? 'success' : 'failure',
    statusClass: `${Math.floor(status / 100)}xx`,
  };
}

/**
 * Runs one attempt in a span and records its outcome and duration. `send` runs with that span
 * active, so what it logs carries the attempt's `trace_id` and `span_id` (the logger's mixin).
 * It resolves with the receiver's status (any status: a 4xx/5xx is a failed attempt, not an
 * exception), or status null and an `error` when there was no answer (timeout, refused, blocked
 * address); a throw counts as no answer too.
 */
export async function withWebhookAttemptSpan<T extends { statusCode: number | null; error?: string | null }>(
  attempt: WebhookAttempt,
  send: (span: Span) => Promise<T>,
): Promise<T> {
  const parent = attempt.traceHeaders ? extractTraceContext(attempt.traceHeaders) : context.active();
  const span = tracer().startSpan(
    `webhook ${attempt.eventType} attempt`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        [ATTR.deliveryId]: attempt.deliveryId,
        [ATTR.eventId]: attempt.eventId,
        [ATTR.eventType]: attempt.eventType,
        [ATTR.subscriptionId]: attempt.subscriptionId,
        'ordering.webhook.attempt': attempt.attempt,
        'server.address': originOf(attempt.url),
      },
    },
    parent,
  );
  const startedAt = process.hrtime.bigint();
  let status: number | undefined;
  try {
    const result = await context.with(trace.setSpan(parent, span), () => send(span));
    status = result.statusCode ?? undefined;
    if (status === undefined) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: result.error ?? 'no answer' });
    } else {
      span.setAttribute('http.response.status_code', status);
      if (status < 200 || status >= 300) {
        span.setStatus({ code: SpanStatusCode.ERROR, message: `receiver answered ${status}` });
      }
    }
    return result;
  } catch (err) {
    recordError(span, err);
    throw err;
  } finally {
    span.end();
    const seconds = Number(process.hrtime.bigint() - startedAt) / 1e9;
    const { outcome, statusClass } = outcomeOf(status);
    const labels = {
      outcome,
      status_class: statusClass,
      event_type: attempt.eventType,
      // A failing receiver is retried about 14 times a delivery: the alert reads first attempts. A
      // replay's attempt is no first one either: replaying a range of failures to a receiver still
      // down would otherwise page on-call.
      attempt: attempt.attempt > 1 ? 'retry' : attempt.replayed === true ? 'replay' : 'first',
    };
    platformMetrics().webhookAttempts.add(1, labels);
    platformMetrics().webhookDuration.record(seconds, { outcome });
  }
}

/** A delivery gave up (no success within its retry horizon): counted for the alert. */
export function recordDeliveryGivenUp(labels: { eventType: string }): void {
  platformMetrics().webhookFailedDeliveries.add(1, { event_type: labels.eventType });
}
