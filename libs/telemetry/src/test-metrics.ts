// For tests: a meter provider read like Prometheus reads it, so a test can assert the metrics text
// a scrape would get.
import { metrics } from '@opentelemetry/api';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { meterProviderChanged } from './instruments';
import { createPrometheusReader } from './prometheus-reader';

export interface TestMetrics {
  /** The Prometheus text of everything recorded since the start. */
  text(): Promise<string>;
  shutdown(): Promise<void>;
}

export function startTestMetrics(): TestMetrics {
  const prometheus = createPrometheusReader();
  const provider = new MeterProvider({ readers: [prometheus.reader] });
  metrics.setGlobalMeterProvider(provider);
  meterProviderChanged();
  return {
    text: () => prometheus.text(),
    shutdown: async () => {
      await provider.shutdown();
      metrics.disable();
      meterProviderChanged();
    },
  };
}
