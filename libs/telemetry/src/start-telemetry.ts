// OpenTelemetry start-up for a service. It must run before the instrumented modules (http,
// express, pg, ioredis, undici) are loaded, so services start with `node --require
// <this package>/src/register` (see register.ts) or call startTelemetry first thing.
//
// Exporters follow the standard OTEL_* variables (OTEL_TRACES_EXPORTER=otlp|console|none,
// OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_METRICS_EXPORTER, ...), with one
// difference from the SDK's defaults: when neither an exporter nor an OTLP endpoint is configured,
// nothing is exported (local runs and tests stay quiet). Spans are still created and propagated,
// so trace ids reach logs and Kafka headers either way.
import { diag, DiagConsoleLogger, DiagLogLevel } from '@opentelemetry/api';
import type * as NodeSdkModule from './node-sdk';

export interface TelemetryOptions {
  /** `service.name` of every span. */
  service: string;
}

export interface Telemetry {
  /** What spans are exported to: e.g. `['otlp']`, `['console']`, `['none']`; `[]` when disabled. */
  readonly tracesExporters: string[];
  /** Flushes and stops exporting. */
  shutdown(): Promise<void>;
}

let running: Telemetry | undefined;

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

/**
 * Starts the OpenTelemetry SDK once per process (a second call returns the running handle: several
 * services hosted in one test process share it). OTEL_SDK_DISABLED=true turns it off.
 */
export function startTelemetry(options: TelemetryOptions): Telemetry {
  if (running) return running;
  const env = process.env;
  if (list(env.OTEL_SDK_DISABLED)[0] === 'true') {
    running = { tracesExporters: [], shutdown: async () => {} };
    return running;
  }
  if (!env.OTEL_LOG_LEVEL) diag.setLogger(new DiagConsoleLogger(), DiagLogLevel.ERROR);

  const traces = exportersFromEnv(env, 'TRACES');
  // Loaded here, not at import: the SDK and its exporters take a few hundred ms to load, and most
  // importers of this package only want the Kafka trace-context helpers.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { createNodeSdk } = require('./node-sdk') as typeof NodeSdkModule;
  const sdk = createNodeSdk({
    service: options.service,
    tracesExporters: traces,
    metricsExporters: exportersFromEnv(env, 'METRICS'),
    logsExporters: exportersFromEnv(env, 'LOGS'),
  });
  sdk.start();
  let stopped: Promise<void> | undefined;
  running = {
    tracesExporters: traces,
    shutdown: () => (stopped ??= sdk.shutdown().finally(() => (running = undefined))),
  };
  return running;
}

/** Flushes and stops the running telemetry, if any. */
export function shutdownTelemetry(): Promise<void> {
  return running ? running.shutdown() : Promise.resolve();
}

/**
 * An entry point for a service's list (put it first: entry points stop in reverse, so spans of the
 * shutdown itself are flushed last).
 */
export function telemetryEntryPoint(): { name: string; start(): Promise<void>; stop(): Promise<void> } {
  return { name: 'telemetry', start: async () => {}, stop: shutdownTelemetry };
}
