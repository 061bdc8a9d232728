// One keep-alive connection pool per service behind the gateway. A service with no URL configured
// has no pool: its routes answer 503 service_unavailable.
import { Pool } from 'undici';
import type { ServiceName } from '../route-table';

export interface UpstreamPoolOptions {
  /** Connections per service. */
  connections: number;
  /** Also the longest a response body may stall between two chunks. */
  timeoutMs: number;
}

export class UpstreamPools {
  private readonly pools = new Map<ServiceName, Pool>();

  constructor(urls: Partial<Record<ServiceName, string | undefined>>, options: UpstreamPoolOptions) {
    for (const [service, url] of Object.entries(urls) as [ServiceName, string | undefined][]) {
      if (!url) continue;
      this.pools.set(
        service,
        new Pool(new URL(url).origin, {
          connections: options.connections,
          headersTimeout: options.timeoutMs,
          bodyTimeout: options.timeoutMs,
          connect: { timeout: Math.min(options.timeoutMs, 10_000) },
          keepAliveTimeout: 30_000,
        }),
      );
    }
  }

  get(service: ServiceName): Pool | undefined {
    return this.pools.get(service);
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((pool) => pool.close()));
  }
}
