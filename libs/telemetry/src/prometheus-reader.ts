// The metrics reader Prometheus scrapes: the OpenTelemetry Prometheus exporter without its own
// server (the process serves /metrics, see metrics-server.ts and metrics-endpoint.ts).
import type { IncomingMessage, ServerResponse } from 'node:http';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { AggregationTemporality, InstrumentType } from '@opentelemetry/sdk-metrics';

export interface PrometheusReader {
  reader: PrometheusExporter;
  /** Answers a scrape with the current metrics (text exposition format). */
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** The current metrics as text, as a scrape would see them. */
  text(): Promise<string>;
}

/** Every series carries `service_name` (the process), whatever the scrape configuration labels. */
const CONSTANT_LABELS = /^service\.name$/;

export function createPrometheusReader(): PrometheusReader {
  const reader = new PrometheusExporter({
    preventServerStart: true,
    withoutScopeInfo: true,
    withResourceConstantLabels: CONSTANT_LABELS,
  });
  // The exporter reads everything cumulatively, which for an observable gauge means a series once
  // observed is reported with its last value forever, even when its callback observes nothing (the
  // lag gauges' query failing) or is removed. Read as deltas, an observable gauge reports only what
  // this scrape observed, so such a series goes stale and OrderingLagNotObserved can fire.
  const cumulative = reader.selectAggregationTemporality.bind(reader);
  reader.selectAggregationTemporality = (type) =>
    type === InstrumentType.OBSERVABLE_GAUGE ? AggregationTemporality.DELTA : cumulative(type);
  return {
    reader,
    handle: (req, res) => reader.getMetricsRequestHandler(req, res),
    text: async () => {
      const { resourceMetrics } = await reader.collect();
      return new PrometheusSerializer('', false, CONSTANT_LABELS, false, true).serialize(resourceMetrics);
    },
  };
}
