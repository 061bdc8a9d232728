// Metric instruments are made from the global meter provider. Unlike tracers, a meter taken before
// the provider is registered stays a no-op forever, so instruments are made on first use and made
// again after a provider is registered (startTelemetry, startTestMetrics).
import { metrics, type Meter } from '@opentelemetry/api';

// On globalThis, like the telemetry handle: bundles may hold two copies of this module.
const SLOT = Symbol.for('ordering.meter-generation');
const state = ((globalThis as Record<symbol, { generation: number }>)[SLOT] ??= { generation: 0 });

/** Called when a meter provider is registered or removed. */
export function meterProviderChanged(): void {
  state.generation++;
}

/** A getter of instruments made by `make`, remade when the meter provider changed. */
export function lazyInstruments<T>(make: (meter: Meter) => T): () => T {
  let made: T | undefined;
  let madeIn = -1;
  return () => {
    if (madeIn !== state.generation || made === undefined) {
      made = make(metrics.getMeter('ordering'));
      madeIn = state.generation;
    }
    return made;
  };
}
