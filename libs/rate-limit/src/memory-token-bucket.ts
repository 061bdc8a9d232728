// The fallback while Redis is down: the same buckets, held by this process only (so with N replicas
// a key may get up to N times its rate until Redis is back). Each take names its bucket's
// parameters, so one store can hold buckets of different sizes (the auth service's token endpoint
// limits); full buckets are forgotten first when it holds too many, each by its own parameters.
import { type BucketParams, type BucketState, type TakeResult, msUntilFull, takeToken } from './token-bucket';

interface Entry {
  state: BucketState;
  params: BucketParams;
}

export class MemoryTokenBucket {
  private readonly buckets = new Map<string, Entry>();

  constructor(
    /** Above this many buckets tracked, full ones are dropped (they equal fresh ones). */
    private readonly maxEntries = 100_000,
    private readonly now: () => number = Date.now,
  ) {}

  take(key: string, params: BucketParams): TakeResult {
    const nowMs = this.now();
    const { state, result } = takeToken(this.buckets.get(key)?.state, nowMs, params);
    // Re-insert so that the map's order is least recently used first.
    this.buckets.delete(key);
    this.buckets.set(key, { state, params });
    if (this.buckets.size > this.maxEntries) this.evict(nowMs);
    return result;
  }

  get size(): number {
    return this.buckets.size;
  }

  private evict(nowMs: number): void {
    for (const [key, { state, params }] of this.buckets) {
      if (nowMs - state.updatedAtMs >= msUntilFull(state, params)) this.buckets.delete(key);
    }
    // Still too many busy buckets: forget the least recently used (they start full again).
    for (const key of this.buckets.keys()) {
      if (this.buckets.size <= this.maxEntries) break;
      this.buckets.delete(key);
    }
  }
}
