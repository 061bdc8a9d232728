// The OpenTelemetry NodeSDK with the instrumentations we use. Loaded lazily by startTelemetry.
import { ExpressInstrumentation } from '@opentelemetry/instrumentation-express';
import { HttpInstrumentation } from '@opentelemetry/instrumentation-http';
import { IORedisInstrumentation } from '@opentelemetry/instrumentation-ioredis';
import { PgInstrumentation } from '@opentelemetry/instrumentation-pg';
import { UndiciInstrumentation } from '@opentelemetry/instrumentation-undici';
import { NodeSDK, type NodeSDKConfiguration } from '@opentelemetry/sdk-node';
import { NoopSpanProcessor } from '@opentelemetry/sdk-trace';

/** Paths of liveness/readiness probes: not worth a span each. */
const PROBE_PATHS = new Set(['/healthz', '/readyz', '/livez']);

/** http (server and client), express, pg, ioredis and undici (fetch); no fs/dns/net noise. */
export function defaultInstrumentations() {
  return [
    new HttpInstrumentation({
      ignoreIncomingRequestHook: (req) => PROBE_PATHS.has((req.url ?? '').split('?')[0] ?? ''),
    }),
    new ExpressInstrumentation(),
    new PgInstrumentation(),
    new IORedisInstrumentation(),
    new UndiciInstrumentation(),
  ];
}

export interface NodeSdkOptions {
  service: string;
  tracesExporters: string[];
  metricsExporters: string[];
  logsExporters: string[];
}

export function createNodeSdk(options: NodeSdkOptions): NodeSDK {
  const config: Partial<NodeSDKConfiguration> = {
    serviceName: options.service,
    instrumentations: defaultInstrumentations(),
  };
  // 'none': keep a tracer provider (ids and propagation) that exports nothing. Otherwise the SDK
  // builds the exporters from OTEL_TRACES_EXPORTER itself (its default, otlp, is what we chose).
  if (options.tracesExporters.join() === 'none') config.spanProcessors = [new NoopSpanProcessor()];
  if (options.metricsExporters.includes('none')) config.metricReaders = [];
  if (options.logsExporters.includes('none')) config.logRecordProcessors = [];
  return new NodeSDK(config);
}
