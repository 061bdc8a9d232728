// A real Zipkin for a test (the local platform's trace viewer, deploy/local/zipkin-server.ts: the
// cached server jar on Java 17, in-memory storage) on a free port, the environment that makes a
// process export its spans to it, and reading a trace back from its API.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startZipkin, stopZipkin, waitForZipkin } from '../../deploy/local/zipkin-server';
import { freePort } from '@ordering/testing';

/** A span as Zipkin's API v2 answers it. */
export interface ZipkinSpan {
  traceId: string;
  id: string;
  parentId?: string;
  name: string;
  kind?: 'CLIENT' | 'SERVER' | 'PRODUCER' | 'CONSUMER';
  localEndpoint?: { serviceName?: string };
  tags?: Record<string, string>;
}

/** Spans whose parent is not (yet) in `spans`: spans leave each process in its own batches. */
export function spansWithoutParent(spans: ZipkinSpan[]): ZipkinSpan[] {
  const ids = new Set(spans.map((s) => s.id));
  return spans.filter((s) => s.parentId !== undefined && !ids.has(s.parentId));
}

/** Reads traces back from a Zipkin's API (a test's own, or the one `./dev up` starts). */
export interface ZipkinReader {
  /** The API base, e.g. http://127.0.0.1:41234/api/v2 */
  api: string;
  /** The spans of one trace stored so far ([] for an unknown trace). */
  trace(traceId: string): Promise<ZipkinSpan[]>;
  /** Polls `trace` until `complete(spans)` holds; fails after `timeoutMs` with what had arrived. */
  waitForTrace(
    traceId: string,
    complete: (spans: ZipkinSpan[]) => boolean,
    timeoutMs?: number,
  ): Promise<ZipkinSpan[]>;
  /** The trace ids an annotation query (`ordering.order_id=ord_1`) finds. */
  traceIdsWhere(annotationQuery: string): Promise<string[]>;
}

export interface TestZipkin extends ZipkinReader {
  /** Environment of a process that exports its spans here (libs/telemetry settings). */
  exportEnv: Record<string, string>;
  /** Resolves once Zipkin answers (about 25 s after the start on a quiet machine). */
  ready(): Promise<void>;
  stop(): Promise<void>;
}

/** The reader of the Zipkin whose API is at `api`. */
export function zipkinReader(api: string): ZipkinReader {
  const trace = async (traceId: string): Promise<ZipkinSpan[]> => {
    const res = await fetch(`${api}/trace/${traceId}`);
    return res.ok ? ((await res.json()) as ZipkinSpan[]) : [];
  };
  return {
    api,
    trace,
    waitForTrace: async (traceId, complete, timeoutMs = 30_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const spans = await trace(traceId);
        if (complete(spans)) return spans;
        if (Date.now() > deadline) {
          const seen = spans.map((s) => `${s.localEndpoint?.serviceName} ${s.kind ?? 'INTERNAL'} ${s.name}`);
          throw new Error(`trace ${traceId} incomplete after ${timeoutMs} ms; it has:\n${seen.join('\n')}`);
        }
        await new Promise((r) => setTimeout(r, 250));
      }
    },
    traceIdsWhere: async (annotationQuery) => {
      const res = await fetch(
        `${api}/traces?annotationQuery=${encodeURIComponent(annotationQuery)}&limit=10`,
      );
      return ((await res.json()) as ZipkinSpan[][]).map((t) => t[0]!.traceId);
    },
  };
}

/**
 * Starts Zipkin without waiting for it (start it first, start the processes meanwhile, and call
 * `ready()` before reading): its JVM takes longer to start than the services.
 */
export async function startTestZipkin(): Promise<TestZipkin> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'ordering-zipkin-'));
  const zipkin = await startZipkin({ port: await freePort(), dataDir });
  let ready: Promise<void> | undefined;
  return {
    ...zipkinReader(`${zipkin.url}/api/v2`),
    exportEnv: { OTEL_TRACES_EXPORTER: 'zipkin', OTEL_EXPORTER_ZIPKIN_ENDPOINT: zipkin.spansEndpoint },
    ready: () => (ready ??= waitForZipkin(zipkin, dataDir, 150_000)),
    stop: async () => {
      await stopZipkin(dataDir);
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
