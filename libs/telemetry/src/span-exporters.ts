// Where finished spans go: batched to OTLP (a collector in a cluster), Zipkin (the local trace
// viewer) or the console; 'none' keeps ids and propagation and exports nothing. Exporter modules
// are loaded only when chosen. OTLP/HTTP protobuf, the production path, encodes each span as it ends
// (otlp-span-processor.ts); the others batch span objects with the SDK's BatchSpanProcessor.
/* eslint-disable @typescript-eslint/no-require-imports */
import {
  BatchSpanProcessor,
  ConsoleSpanExporter,
  SimpleSpanProcessor,
  type SpanExporter,
  type SpanProcessor,
} from '@opentelemetry/sdk-trace';
import type * as OtlpHttp from '@opentelemetry/exporter-trace-otlp-http';
import type * as Zipkin from '@opentelemetry/exporter-zipkin';
import type * as OtlpProtobuf from './otlp-protobuf-exporter';
import type * as OtlpProcessor from './otlp-span-processor';

/** Spans leave in batches, off the request path: 1 s apart, or sooner when 512 are waiting. */
const BATCHING = { scheduledDelayMillis: 1000, maxExportBatchSize: 512, maxQueueSize: 8192 };

/** The traces URL of the OTLP/HTTP endpoint: the signal's own variable as is, else the base + /v1/traces. */
function otlpTracesUrl(env: NodeJS.ProcessEnv): string | undefined {
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT;
  return base ? `${base.replace(/\/+$/, '')}/v1/traces` : undefined;
}

function otlpProcessor(env: NodeJS.ProcessEnv): SpanProcessor {
  const url = otlpTracesUrl(env);
  const config = url ? { url } : {};
  const protocol = (
    env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ??
    env.OTEL_EXPORTER_OTLP_PROTOCOL ??
    'http/protobuf'
  )
    .trim()
    .toLowerCase();
  if (protocol === 'http/json') {
    const { OTLPTraceExporter } = require('@opentelemetry/exporter-trace-otlp-http') as typeof OtlpHttp;
    return new BatchSpanProcessor({ exporter: new OTLPTraceExporter(config), ...BATCHING });
  }
  if (protocol !== 'http/protobuf') {
    throw new Error(`OTEL_EXPORTER_OTLP_PROTOCOL '${protocol}' is not supported (http/protobuf, http/json)`);
  }
  const { OtlpProtobufSpanExporter } = require('./otlp-protobuf-exporter') as typeof OtlpProtobuf;
  const { EncodingBatchSpanProcessor } = require('./otlp-span-processor') as typeof OtlpProcessor;
  return new EncodingBatchSpanProcessor({ exporter: new OtlpProtobufSpanExporter(config), ...BATCHING });
}

function zipkinExporter(env: NodeJS.ProcessEnv): SpanExporter {
  const { ZipkinExporter } = require('@opentelemetry/exporter-zipkin') as typeof Zipkin;
  // Default http://localhost:9411/api/v2/spans.
  const url = env.OTEL_EXPORTER_ZIPKIN_ENDPOINT;
  return new ZipkinExporter(url ? { url } : {});
}

export function spanProcessorsFor(exporters: string[], env: NodeJS.ProcessEnv): SpanProcessor[] {
  const processors: SpanProcessor[] = [];
  for (const name of exporters) {
    if (name === 'none') continue;
    if (name === 'console') {
      processors.push(new SimpleSpanProcessor({ exporter: new ConsoleSpanExporter() }));
    } else if (name === 'otlp') {
      processors.push(otlpProcessor(env));
    } else if (name === 'zipkin') {
      processors.push(new BatchSpanProcessor({ exporter: zipkinExporter(env), ...BATCHING }));
    } else {
      throw new Error(`OTEL_TRACES_EXPORTER '${name}' is not supported (otlp, zipkin, console, none)`);
    }
  }
  return processors;
}
