// One JSON logger per process. Every line names the service and, inside a traced operation, the
// trace and span ids of the active OpenTelemetry span, so logs and traces can be joined.
import { isSpanContextValid, trace } from '@opentelemetry/api';
import { format } from 'node:util';
import pino from 'pino';
import { platformMetrics } from '@ordering/telemetry';

export type Logger = pino.Logger;

export interface LoggerOptions {
  service: string;
  /** pino level: fatal, error, warn, info, debug, trace, silent. Default `info`. */
  level?: string;
  /** Where lines go; default stdout (`stdoutDestination()`). Tests pass a stream to read what was logged. */
  destination?: pino.DestinationStream;
}

/** Lines are written to stdout once this many bytes are waiting (about 15 access lines)... */
export const STDOUT_BATCH_BYTES = 4096;
/** ...or at the latest this long after they were logged, so that a quiet process's lines still show. */
export const STDOUT_FLUSH_INTERVAL_MS = 200;
/** Past this much unwritten log (stdout's reader stalled), new lines are dropped rather than kept. */
export const STDOUT_MAX_BUFFERED_BYTES = 16 * 1024 * 1024;
const STDOUT_MAX_BUFFERED_MIB = STDOUT_MAX_BUFFERED_BYTES / (1024 * 1024);

/** At most one note on stderr about dropped lines per this many milliseconds. */
export const DROPPED_LINES_NOTE_INTERVAL_MS = 10_000;

let stdout: pino.DestinationStream | undefined;

/**
 * Lines dropped past the bound are counted (`ordering.log.lines.dropped`) and said on stderr, at
 * most once per `DROPPED_LINES_NOTE_INTERVAL_MS`, with how many were dropped since the last note.
 */
function reportDroppedLines(destination: NodeJS.EventEmitter): void {
  let unreported = 0;
  let lastNoteAt = -Infinity;
  destination.on('drop', (data: string | Buffer) => {
    let lines = 0;
    for (let at = data.indexOf('\n'); at !== -1; at = data.indexOf('\n', at + 1)) lines++;
    if (lines === 0) return;
    platformMetrics().logLinesDropped.add(lines);
    unreported += lines;
    const now = Date.now();
    if (now - lastNoteAt < DROPPED_LINES_NOTE_INTERVAL_MS) return;
    lastNoteAt = now;
    process.stderr.write(
      `${JSON.stringify({
        level: 40,
        time: now,
        msg: `log lines dropped (${unreported} since the last note): stdout's reader is more than ${STDOUT_MAX_BUFFERED_MIB} MiB behind`,
        dropped_lines: unreported,
      })}\n`,
    );
    unreported = 0;
  });
}

/**
 * The one stdout destination of the process, shared by its loggers: lines are batched and written
 * asynchronously (one write per few kilobytes instead of one per line), flushed every
 * `STDOUT_FLUSH_INTERVAL_MS`, by `logger.flush()` (the stop sequence of `runService`), and
 * synchronously when the process exits: normally, by `process.exit`, or on an uncaught error
 * (pino's exit hook for an asynchronous destination).
 */
export function stdoutDestination(): pino.DestinationStream {
  if (!stdout) {
    const destination = pino.destination({
      dest: 1,
      sync: false,
      minLength: STDOUT_BATCH_BYTES,
      periodicFlush: STDOUT_FLUSH_INTERVAL_MS,
      maxLength: STDOUT_MAX_BUFFERED_BYTES,
    });
    reportDroppedLines(destination);
    stdout = destination;
  }
  return stdout;
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
  return pino(pinoOptions, options.destination ?? stdoutDestination());
}

/**
 * What libraries print with `console.*` (oidc-provider's notices and warnings, for one) becomes
 * lines of `logger` (JSON, `source: "console"`, the level of the console method), so that every
 * line a process writes is JSON a log shipper can read. Production processes only: tests keep
 * their console.
 */
export function routeConsoleTo(logger: Logger): void {
  const to =
    (level: 'debug' | 'info' | 'warn' | 'error') =>
    (...args: unknown[]) =>
      logger[level]({ source: 'console' }, format(...args));
  /* eslint-disable no-console -- replacing the console's methods, not printing */
  console.debug = to('debug');
  console.log = to('info');
  console.info = to('info');
  console.warn = to('warn');
  console.error = to('error');
  /* eslint-enable no-console */
}
