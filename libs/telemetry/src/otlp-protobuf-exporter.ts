// The OTLP/HTTP protobuf span exporter: @opentelemetry/exporter-trace-otlp-proto's, sending batches
// already encoded by otlp-span-processor.ts (the same bytes its serializer would write). Everything
// else is the SDK's own export path: the OTEL_EXPORTER_OTLP_* settings (endpoint, headers, timeout,
// compression), the keep-alive agent, retries with back-off and the export response handling.
import { OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import {
  convertLegacyHttpOptions,
  createOtlpHttpExportDelegate,
  type OTLPExporterNodeConfigBase,
} from '@opentelemetry/otlp-exporter-base/node-http';
import {
  ProtobufTraceSerializer,
  type IExporterMetricsHelper,
  type IExportTraceServiceResponse,
  type ISerializer,
} from '@opentelemetry/otlp-transformer';
import type { EncodedSpans } from './otlp-span-serializer';
import type { EncodedSpanExporter } from './otlp-span-processor';

const serializer: ISerializer<EncodedSpans, IExportTraceServiceResponse> = {
  serializeRequest: (batch) => batch.bytes(),
  deserializeResponse: (data) => ProtobufTraceSerializer.deserializeResponse(data),
};

const metricsHelper: IExporterMetricsHelper<EncodedSpans> = {
  name: 'span',
  countItems: (batch) => batch.count,
};

/** `otel.component.type` of the exporter's own metrics, as the SDK's OTLP/HTTP span exporter names it. */
const COMPONENT_TYPE = 'otlp_http_span_exporter';

export class OtlpProtobufSpanExporter extends OTLPExporterBase<EncodedSpans> implements EncodedSpanExporter {
  constructor(config: OTLPExporterNodeConfigBase = {}) {
    super(
      createOtlpHttpExportDelegate(
        convertLegacyHttpOptions(config, 'TRACES', 'v1/traces', { 'Content-Type': 'application/x-protobuf' }),
        serializer,
        COMPONENT_TYPE,
        metricsHelper,
        undefined,
      ),
    );
  }
}
