// The `traceresponse` header of W3C Trace Context Level 2: `00-<trace id>-<span id>-<flags>` of the
// span that answered. An integrator who reports it (or the request id) leads on-call straight to the
// trace; flags 01 say the trace was recorded, 00 that it was sampled out.
import { isSpanContextValid, type SpanContext } from '@opentelemetry/api';

export const TRACE_RESPONSE_HEADER = 'traceresponse';

const HEX = '0123456789abcdef';

/** The header value for `ctx`, or undefined when there is no valid trace (telemetry off). */
export function traceResponseValue(ctx: SpanContext): string | undefined {
  if (!isSpanContextValid(ctx)) return undefined;
  const flags = ctx.traceFlags & 0xff;
  return `00-${ctx.traceId}-${ctx.spanId}-${HEX[flags >> 4]}${HEX[flags & 0xf]}`;
}

/** Parses a `traceresponse` (or `traceparent`) value: its trace id, span id and whether sampled. */
export function parseTraceResponse(
  value: string | undefined | null,
): { traceId: string; spanId: string; sampled: boolean } | undefined {
  const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(value ?? '');
  if (!match) return undefined;
  return { traceId: match[1]!, spanId: match[2]!, sampled: (parseInt(match[3]!, 16) & 1) === 1 };
}
