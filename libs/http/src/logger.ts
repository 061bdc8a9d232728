// One JSON logger per process. Every line names the service and, inside a traced operation, the
// trace and span ids of the active OpenTelemetry span, so logs and traces can be joined.
import { isSpanContextValid, trace } from '@opentelemetry/api';
import pino from 'pino';

export type Logger = pino.Logger;

export interface LoggerOptions {
  service: string;
  /** pino level: fatal, error, warn, info, debug, trace, silent. Default `info`. */
  level?: string;
  /** Where lines go; default stdout. Tests pass a stream to read what was logged. */
  destination?: pino.DestinationStream;
}

/** Header and field paths whose values never reach a log line. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-ordering-identity"]',
  'req.headers["proxy-authorization"]',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers.cookie',
  'headers["x-ordering-identity"]',
  '*.password',
  '*.client_secret',
  '*.signing_secret',
  '*.secret',
  '*.access_token',
  '*.refresh_token',
  '*.id_token',
  'password',
  'client_secret',
  'signing_secret',
  'secret',
  'access_token',
  'refresh_token',
  'id_token',
];

/** trace_id/span_id of the active span, or nothing outside a trace. */
export function traceFields(): Record<string, string> {
  const span = trace.getActiveSpan();
  if (!span) return {};
  const ctx = span.spanContext();
  if (!isSpanContextValid(ctx)) return {};
  return { trace_id: ctx.traceId, span_id: ctx.spanId };
}

export function createLogger(options: LoggerOptions): Logger {
  const pinoOptions: pino.LoggerOptions = {
    level: options.level ?? 'info',
    base: { service: options.service },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    mixin: traceFields,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
  };
  return options.destination ? pino(pinoOptions, options.destination) : pino(pinoOptions);
}
