// The separate metrics listener (METRICS_PORT): /metrics for Prometheus, nothing else. In a cluster
// it keeps /metrics off the public API port (the ingress sends every path to the gateway).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PrometheusReader } from './prometheus-reader';

export interface MetricsServer {
  url(): string;
  close(): Promise<void>;
}

export async function startMetricsServer(
  prometheus: PrometheusReader,
  options: { port: number; host?: string | undefined },
): Promise<MetricsServer> {
  const server = http.createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === '/metrics') return prometheus.handle(req, res);
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: metrics are at /metrics\n');
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host || undefined, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.unref();
  return {
    url: () => {
      const { port } = server.address() as AddressInfo;
      return `http://127.0.0.1:${port}/metrics`;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
