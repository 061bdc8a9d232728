// What a process that keeps serving while Redis is down knows about Redis's health: commands fail
// fast, the caller falls back (the in-process buckets), the first failure of an outage logs one
// warning saying what the fallback means, and the first success after it logs the outage's length.
// The gateway's Redis connection and the auth service's token endpoint limits keep one each.
export interface HealthLogger {
  warn(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
}

export class RedisHealth {
  private degradedReason: string | undefined;
  private degradedSince: number | undefined;

  constructor(
    private readonly logger: HealthLogger,
    /** What the fallback means, for the outage's warning: `Redis is unavailable: <this>`. */
    private readonly meanwhile: string,
  ) {}

  /** Why Redis is not used right now, or undefined when it is. */
  get degraded(): string | undefined {
    return this.degradedReason;
  }

  /** A Redis command failed (or Redis is not connected): the first failure of an outage logs. */
  failed(err: unknown): void {
    const message = err instanceof Error ? err.message : String(err);
    if (this.degradedReason !== undefined) return;
    this.degradedReason = message.slice(0, 160) || 'Redis is unavailable';
    this.degradedSince = Date.now();
    this.logger.warn({ err }, `Redis is unavailable: ${this.meanwhile}`);
  }

  /** Redis answered: ends an outage. */
  succeeded(): void {
    if (this.degradedReason === undefined) return;
    const outageMs = Date.now() - (this.degradedSince ?? Date.now());
    this.degradedReason = undefined;
    this.degradedSince = undefined;
    this.logger.info({ outage_ms: outageMs }, 'Redis is available again');
  }
}
