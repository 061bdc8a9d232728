// `/metrics` for Prometheus on the process's own port, unless METRICS_PORT gives it a listener of
// its own (libs/telemetry): the chart sets that, so that /metrics is never on the public API port.
// Without running telemetry (tests, OTEL_SDK_DISABLED) it is an empty exposition.
import type { Express } from 'express';
import { runningTelemetry } from '@ordering/telemetry';

export function metricsOnOwnListener(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.METRICS_PORT !== undefined && env.METRICS_PORT !== '';
}

export function mountMetricsRoute(app: Express): void {
  if (metricsOnOwnListener()) return;
  app.get('/metrics', async (_req, res, next) => {
    try {
      const text = (await runningTelemetry()?.metricsText()) ?? '';
      res.set('Cache-Control', 'no-store').type('text/plain; version=0.0.4; charset=utf-8').send(text);
    } catch (err) {
      next(err);
    }
  });
}
