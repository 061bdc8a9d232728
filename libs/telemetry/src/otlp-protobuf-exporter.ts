// The OTLP/HTTP protobuf span exporter: @opentelemetry/exporter-trace-otlp-proto's, with the span
// encoding of otlp-span-serializer.ts (same bytes, a third of the CPU). Everything else is the
// SDK's own export path: the OTEL_EXPORTER_OTLP_* settings (endpoint, headers, timeout,
// compression), the keep-alive agent, retries with back-off and the export response handling.
import {
  convertLegacyHttpOptions,
  createOtlpHttpExportDelegate,
  type OTLPExporterNodeConfigBase,
} from '@opentelemetry/otlp-exporter-base/node-http';
import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import {
  ProtobufTraceSerializer,
  TraceExporterMetricsHelper,
  type ISerializer,
  type IExportTraceServiceResponse,
} from '@opentelemetry/otlp-transformer';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace';
import { serializeSpans } from './otlp-span-serializer';

const serializer: ISerializer<ReadableSpan[], IExportTraceServiceResponse> = {
  serializeRequest: serializeSpans,
  deserializeResponse: (data) => ProtobufTraceSerializer.deserializeResponse(data),
};

/** `otel.component.type` of the exporter's own metrics, as the SDK's OTLP/HTTP span exporter names it. */
const COMPONENT_TYPE = 'otlp_http_span_exporter';

export class OtlpProtobufSpanExporter extends OTLPExporterBase<ReadableSpan[]> implements SpanExporter {
  constructor(config: OTLPExporterNodeConfigBase = {}) {
    super(
      createOtlpHttpExportDelegate(
        convertLegacyHttpOptions(config, 'TRACES', 'v1/traces', { 'Content-Type': 'application/x-protobuf' }),
        serializer,
        COMPONENT_TYPE,
        TraceExporterMetricsHelper,
        undefined,
      ),
    );
  }
}
