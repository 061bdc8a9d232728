// For tests: the platform's tracer provider (lean-tracer.ts) keeping finished spans in memory, with the same context manager
// and W3C propagation as production, so a test can assert which spans a flow produced.
import { context, propagation, trace } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from '@opentelemetry/core';
import {
  AlwaysOnSampler,
  InMemorySpanExporter,
  ParentBasedSampler,
  SimpleSpanProcessor,
  type ReadableSpan,
} from '@opentelemetry/sdk-trace';
import { LeanTracerProvider } from './lean-tracer';

export interface InMemoryTracing {
  /** Spans finished so far, in the order they ended. */
  spans(): ReadableSpan[];
  /** Forgets the spans finished so far. */
  reset(): void;
  /** Unregisters the provider, context manager and propagator. */
  shutdown(): Promise<void>;
}

export type { ReadableSpan };

export function startInMemoryTracing(): InMemoryTracing {
  const exporter = new InMemorySpanExporter();
  const provider = new LeanTracerProvider({
    sampler: new ParentBasedSampler({ root: new AlwaysOnSampler() }),
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  const contextManager = new AsyncLocalStorageContextManager().enable();
  if (!context.setGlobalContextManager(contextManager)) {
    throw new Error(
      'A context manager is already registered (is telemetry already started in this process?)',
    );
  }
  propagation.setGlobalPropagator(
    new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] }),
  );
  trace.setGlobalTracerProvider(provider);
  return {
    spans: () => exporter.getFinishedSpans(),
    reset: () => exporter.reset(),
    shutdown: async () => {
      await provider.shutdown();
      trace.disable();
      propagation.disable();
      context.disable();
    },
  };
}
