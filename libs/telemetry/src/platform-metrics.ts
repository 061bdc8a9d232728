// Every metric of the platform, in one place: name, unit, attributes. The Prometheus names follow
// from the OpenTelemetry ones (dots become underscores; the unit is in the `# UNIT` line, not the
// name; counters get `_total`): e.g. `http.server.request.duration` (s) is scraped as
// `http_server_request_duration_{bucket,sum,count}`. docs/operations.md and the chart's alert rules
// read these names.
import type { Attributes, ObservableResult } from '@opentelemetry/api';
import { lazyInstruments } from './instruments';

/** Latency buckets in seconds, for requests, deliveries and queries alike. */
const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

const instruments = lazyInstruments((meter) => ({
  httpServerDuration: meter.createHistogram('http.server.request.duration', {
    description: 'Duration of HTTP requests served, by method, route template and status code',
    unit: 's',
    advice: { explicitBucketBoundaries: SECONDS_BUCKETS },
  }),
  rateLimitRefusals: meter.createCounter('ordering.gateway.rate_limit.refusals', {
    description: 'Requests the gateway refused with 429 because their token was over its rate limit',
  }),
  authFailures: meter.createCounter('ordering.gateway.authentication.failures', {
    description: 'Requests the gateway refused with 401 (missing, invalid, expired or revoked token)',
  }),
  upstreamFailures: meter.createCounter('ordering.gateway.upstream.failures', {
    description: 'Forwarded requests that got no answer from their service (503/504 by the gateway)',
  }),
  tokenErrors: meter.createCounter('ordering.auth.token.errors', {
    description: 'Token endpoint answers that are errors, by OAuth error code',
  }),
  tokenRateLimitRefusals: meter.createCounter('ordering.auth.token.rate_limit.refusals', {
    description:
      'Token requests the auth service refused with 429 before any work, by bucket (client, user, failed_authentication)',
  }),
  tokensIssued: meter.createCounter('ordering.auth.tokens.issued', {
    description: 'Access tokens issued by the token endpoint, by grant type',
  }),
  webhookAttempts: meter.createCounter('ordering.webhook.delivery.attempts', {
    description:
      'Webhook delivery attempts, by outcome (success, failure), status class and attempt (first, retry, replay: the first after a replay)',
  }),
  webhookDuration: meter.createHistogram('ordering.webhook.delivery.duration', {
    description: 'Duration of webhook delivery attempts, until the receiver answered or failed',
    unit: 's',
    advice: { explicitBucketBoundaries: SECONDS_BUCKETS },
  }),
  webhookFailedDeliveries: meter.createCounter('ordering.webhook.deliveries.failed', {
    description: 'Webhook deliveries that gave up after their last retry (status failed)',
  }),
  consumerMessages: meter.createCounter('ordering.consumer.messages', {
    description: 'Kafka messages handled by a consumer group, by topic and outcome',
  }),
  outboxPublished: meter.createCounter('ordering.outbox.published', {
    description: 'Outbox rows published to Kafka by the relay',
  }),
  logLinesDropped: meter.createCounter('ordering.log.lines.dropped', {
    description: "Log lines dropped because stdout's reader fell more than 16 MiB behind",
  }),
}));

export type PlatformInstruments = ReturnType<typeof instruments>;

/** The instruments, made from the meter provider registered now. */
export const platformMetrics = (): PlatformInstruments => instruments();

/** Observable gauges (lag) register a callback for as long as their owner runs. */
export interface GaugeRegistration {
  remove(): void;
}

const gauges = lazyInstruments((meter) => ({
  outboxLag: meter.createObservableGauge('ordering.outbox.lag', {
    description: 'Age of the oldest outbox row not yet published to Kafka (0 when none waits)',
    unit: 's',
  }),
  outboxPending: meter.createObservableGauge('ordering.outbox.pending', {
    description: 'Outbox rows not yet published to Kafka',
  }),
  consumerLag: meter.createObservableGauge('ordering.consumer.lag', {
    description:
      'Messages of a topic not yet processed by a consumer group (high watermark minus committed offset, summed over partitions)',
  }),
}));

export type GaugeName = keyof ReturnType<typeof gauges>;

/**
 * Observes `gauge` at each scrape with `observe` (which may query a database or Kafka; a failure
 * observes nothing, so the series goes stale and OrderingLagNotObserved fires instead of a false zero).
 */
export function observeGauge(
  gauge: GaugeName,
  observe: () => Promise<{ value: number; attributes?: Attributes }[]>,
): GaugeRegistration {
  const instrument = gauges()[gauge];
  const callback = async (result: ObservableResult) => {
    try {
      for (const { value, attributes } of await observe()) result.observe(value, attributes);
    } catch {
      // Nothing observed: see above.
    }
  };
  instrument.addCallback(callback);
  return { remove: () => instrument.removeCallback(callback) };
}
