// The span processor of OTLP/HTTP protobuf export: the SDK's BatchSpanProcessor, except that a span
// is encoded as it ends (otlp-span-serializer.ts) instead of being kept as an object until its batch
// leaves. Same behaviour otherwise: sampled spans only; a batch leaves when it holds
// `maxExportBatchSize` spans or `scheduledDelayMillis` after its first span, one export at a time;
// beyond `maxQueueSize` spans waiting, new ones are dropped (with one warning); export failures are
// reported to OpenTelemetry's error handler and the batch is dropped (the exporter has retried);
// `forceFlush` sends everything waiting, `shutdown` flushes and then stops the exporter.
import { context, diag, TraceFlags, type Context } from '@opentelemetry/api';
import {
  ExportResultCode,
  globalErrorHandler,
  suppressTracing,
  type ExportResult,
} from '@opentelemetry/core';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace';
import { EncodedSpans } from './otlp-span-serializer';

/** Where batches go: an OTLP exporter taking encoded spans (otlp-protobuf-exporter.ts). */
export interface EncodedSpanExporter {
  export(batch: EncodedSpans, done: (result: ExportResult) => void): void;
  shutdown(): Promise<void>;
}

export interface EncodingSpanProcessorOptions {
  exporter: EncodedSpanExporter;
  scheduledDelayMillis: number;
  maxExportBatchSize: number;
  maxQueueSize: number;
  /** An export that has not answered by then counts as failed. Default 30 s. */
  exportTimeoutMillis?: number;
}

interface Pending {
  batch: EncodedSpans;
  /** Settles once the batch was exported (undefined) or given up (the error). */
  done: Promise<unknown>;
  settle(error?: unknown): void;
}

function pending(batch: EncodedSpans): Pending {
  let settle!: (error?: unknown) => void;
  const done = new Promise<unknown>((resolve) => (settle = resolve));
  return { batch, done, settle };
}

export class EncodingBatchSpanProcessor implements SpanProcessor {
  private current = new EncodedSpans();
  /** Full (or timed-out) batches waiting for their turn, oldest first. */
  private readonly waiting: Pending[] = [];
  private inFlight: Pending | undefined;
  /** Spans encoded and not yet exported (current, waiting and in flight). */
  private queued = 0;
  private dropped = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopping: Promise<void> | undefined;
  private readonly exportTimeoutMillis: number;

  constructor(private readonly options: EncodingSpanProcessorOptions) {
    this.exportTimeoutMillis = options.exportTimeoutMillis ?? 30_000;
  }

  onStart(_span: Span, _parentContext: Context): void {}

  onEnd(span: ReadableSpan): void {
    if (this.stopping) return;
    if ((span.spanContext().traceFlags & TraceFlags.SAMPLED) === 0) return;
    if (this.queued >= this.options.maxQueueSize) {
      if (this.dropped++ === 0) diag.warn('span export queue full (maxQueueSize): dropping spans');
      return;
    }
    if (this.dropped > 0) {
      diag.warn(`dropped ${this.dropped} spans because the export queue was full`);
      this.dropped = 0;
    }
    try {
      this.current.add(span);
    } catch (err) {
      diag.error(`span '${span.name}' could not be encoded and is dropped`, err);
      return;
    }
    this.queued++;
    if (this.current.count >= this.options.maxExportBatchSize) {
      this.seal();
      this.exportNext();
    } else if (this.timer === undefined) {
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.seal();
        this.exportNext();
      }, this.options.scheduledDelayMillis);
      this.timer.unref();
    }
  }

  /** Sends every span ended so far; rejects if one of those batches could not be exported. */
  async forceFlush(): Promise<void> {
    this.seal();
    const batches = [...(this.inFlight ? [this.inFlight] : []), ...this.waiting];
    this.exportNext();
    const errors = (await Promise.all(batches.map((b) => b.done))).filter((e) => e !== undefined);
    if (errors.length > 0) throw errors[0];
  }

  shutdown(): Promise<void> {
    return (this.stopping ??= this.forceFlush()
      .catch((err: unknown) => globalErrorHandler(err as Error))
      .then(() => this.options.exporter.shutdown()));
  }

  /** The batch being filled joins the waiting ones (the timer, if any, is for it: cleared). */
  private seal(): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.current.count === 0) return;
    this.waiting.push(pending(this.current));
    this.current = new EncodedSpans();
  }

  private exportNext(): void {
    if (this.inFlight) return;
    const next = this.waiting.shift();
    if (!next) return;
    this.inFlight = next;
    void this.send(next.batch).then((error) => {
      this.inFlight = undefined;
      this.queued -= next.batch.count;
      if (error !== undefined) globalErrorHandler(error as Error);
      next.settle(error);
      this.exportNext();
    });
  }

  /** Exports one batch; resolves with the error, if it failed. */
  private send(batch: EncodedSpans): Promise<unknown> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(new Error('span export timed out')), this.exportTimeoutMillis);
      // Whatever the export does (an HTTP request) is not traced itself.
      context.with(suppressTracing(context.active()), () => {
        try {
          this.options.exporter.export(batch, (result) => {
            clearTimeout(timer);
            resolve(
              result.code === ExportResultCode.SUCCESS
                ? undefined
                : (result.error ?? new Error('span export failed')),
            );
          });
        } catch (err) {
          clearTimeout(timer);
          resolve(err);
        }
      });
    });
  }
}
