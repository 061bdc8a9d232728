// OpenTelemetry start-up for a process: a tracer provider (lean-tracer.ts) with a parent-based ratio sampler and one
// exporter, W3C trace context, and a meter provider read by Prometheus at /metrics. No
// auto-instrumentation: the spans are the few manual ones an on-call engineer reads (see README),
// which cost a small fraction of what patching http, express, undici and ioredis costs per request.
// Because nothing is patched, it may start at any time before the first request; production starts
// it first thing anyway (`node --require register-telemetry.js start.js`, or serviceMain).
//
// Settings are the standard OTEL_* variables:
//   OTEL_TRACES_EXPORTER=otlp|zipkin|console|none (default: otlp with an OTLP endpoint, else none)
//   OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf|http/json
//   OTEL_EXPORTER_ZIPKIN_ENDPOINT
//   OTEL_TRACES_SAMPLER=parentbased_traceidratio (default) | parentbased_always_on | always_on | ...
//   OTEL_TRACES_SAMPLER_ARG=<ratio 0..1> (default 1: every request traced)
//   OTEL_SDK_DISABLED=true: no spans, no trace ids, no metrics
// and METRICS_PORT: when set, /metrics is served on that port (0: any free one) instead of the
// process's own HTTP port (see metrics-endpoint.ts).
import {
  context,
  diag,
  DiagConsoleLogger,
  DiagLogLevel,
  metrics,
  propagation,
  trace,
} from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { LeanTracerProvider } from './lean-tracer';
import { createPrometheusReader, type PrometheusReader } from './prometheus-reader';
import { samplerFromEnv } from './sampler';
import { spanProcessorsFor } from './span-exporters';
import { meterProviderChanged } from './instruments';
import { startMetricsServer, type MetricsServer } from './metrics-server';

export interface TelemetryOptions {
  /** `service.name` of every span and metric. */
  service: string;
  /** Default process.env. */
  env?: NodeJS.ProcessEnv;
}

export interface Telemetry {
  /** What spans are exported to: e.g. `['otlp']`, `['zipkin']`, `['none']`; `[]` when disabled. */
  readonly tracesExporters: string[];
  /** The Prometheus text of the metrics recorded so far (empty when disabled). */
  metricsText(): Promise<string>;
  /** The URL of the separate metrics listener (METRICS_PORT), if any. */
  metricsUrl(): string | undefined;
  /** Flushes the spans not yet exported. */
  flush(): Promise<void>;
  /** Flushes and stops exporting. */
  shutdown(): Promise<void>;
}

// The handle lives on globalThis: the bundled register-telemetry.js and start.js each hold a copy
// of this module, and both must see the one telemetry of the process.
const SLOT = Symbol.for('ordering.telemetry');
type Slot = { running?: Telemetry | undefined; metricsReady?: Promise<void> };
const slot = ((globalThis as Record<symbol, Slot>)[SLOT] ??= {});

function list(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
}

function hasOtlpEndpoint(env: NodeJS.ProcessEnv, signal: 'TRACES' | 'METRICS' | 'LOGS'): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT || env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`]);
}

/** The exporters a signal uses: the explicit OTEL_<signal>_EXPORTER, else otlp with an endpoint, else none. */
export function exportersFromEnv(env: NodeJS.ProcessEnv, signal: 'TRACES' | 'METRICS' | 'LOGS'): string[] {
  const explicit = list(env[`OTEL_${signal}_EXPORTER`]);
  if (explicit.length > 0) return explicit;
  return hasOtlpEndpoint(env, signal) ? ['otlp'] : ['none'];
}

/** Whether OTEL_SDK_DISABLED turns telemetry off. */
export function telemetryDisabled(env: NodeJS.ProcessEnv = process.env): boolean {
  return list(env.OTEL_SDK_DISABLED)[0] === 'true';
}

function resourceAttributes(env: NodeJS.ProcessEnv, service: string): Record<string, string> {
  const attributes: Record<string, string> = {};
  for (const pair of (env.OTEL_RESOURCE_ATTRIBUTES ?? '').split(',')) {
    const eq = pair.indexOf('=');
    if (eq > 0) attributes[pair.slice(0, eq).trim()] = decodeURIComponent(pair.slice(eq + 1).trim());
  }
  attributes['service.name'] = env.OTEL_SERVICE_NAME || service;
  return attributes;
}

const disabled: Telemetry = {
  tracesExporters: [],
  metricsText: async () => '',
  metricsUrl: () => undefined,
  flush: async () => {},
  shutdown: async () => {
    slot.running = undefined;
  },
};

/**
 * Starts telemetry once per process (a second call returns the running handle: several services
 * hosted in one test process share it).
 */
export function startTelemetry(options: TelemetryOptions): Telemetry {
  if (slot.running) return slot.running;
  const env = options.env ?? process.env;
  if (telemetryDisabled(env)) {
    slot.running = disabled;
    return disabled;
  }
  if (!env.OTEL_LOG_LEVEL) diag.setLogger(new DiagConsoleLogger(), DiagLogLevel.ERROR);

  const resource = resourceFromAttributes(resourceAttributes(env, options.service));
  const tracesExporters = exportersFromEnv(env, 'TRACES');
  const tracerProvider = new LeanTracerProvider({
    resource,
    sampler: samplerFromEnv(env),
    spanProcessors: spanProcessorsFor(tracesExporters, env),
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  );
  trace.setGlobalTracerProvider(tracerProvider);

  const prometheus: PrometheusReader = createPrometheusReader();
  const meterProvider = new MeterProvider({ resource, readers: [prometheus.reader] });
  metrics.setGlobalMeterProvider(meterProvider);
  meterProviderChanged();

  let metricsServer: MetricsServer | undefined;
  const metricsPort = env.METRICS_PORT;
  const serverStarting =
    metricsPort !== undefined && metricsPort !== ''
      ? startMetricsServer(prometheus, { port: Number(metricsPort), host: env.METRICS_HOST }).then(
          (server) => {
            metricsServer = server;
          },
          (err: unknown) => {
            // The process still serves; only scraping fails (and the OrderingProcessNotScraped alert says so).
            diag.error(`metrics listener on port ${metricsPort} failed to start`, err);
          },
        )
      : Promise.resolve();

  let stopped: Promise<void> | undefined;
  const telemetry: Telemetry = {
    tracesExporters,
    metricsText: () => prometheus.text(),
    metricsUrl: () => metricsServer?.url(),
    flush: () => tracerProvider.forceFlush(),
    shutdown: () =>
      (stopped ??= (async () => {
        await serverStarting;
        await Promise.allSettled([
          tracerProvider.shutdown(),
          meterProvider.shutdown(),
          metricsServer?.close() ?? Promise.resolve(),
        ]);
        trace.disable();
        metrics.disable();
        propagation.disable();
        context.disable();
        meterProviderChanged();
        slot.running = undefined;
      })()),
  };
  slot.running = telemetry;
  slot.metricsReady = serverStarting;
  return telemetry;
}

/** Resolves once the METRICS_PORT listener (if any) is listening. */
export function metricsListenerReady(): Promise<void> {
  return slot.metricsReady ?? Promise.resolve();
}

/** The running telemetry, if started. */
export function runningTelemetry(): Telemetry | undefined {
  return slot.running;
}

/** Flushes and stops the running telemetry, if any. */
export function shutdownTelemetry(): Promise<void> {
  return slot.running ? slot.running.shutdown() : Promise.resolve();
}

/**
 * An entry point for a service's list (put it first: entry points stop in reverse, so spans of the
 * shutdown itself are flushed last).
 */
export function telemetryEntryPoint(): { name: string; start(): Promise<void>; stop(): Promise<void> } {
  return { name: 'telemetry', start: async () => {}, stop: shutdownTelemetry };
}
