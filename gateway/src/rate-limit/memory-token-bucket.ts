// The fallback while Redis is down: the same bucket per token, held by this process only (so with
// N replicas a token may get up to N times the rate until Redis is back).
import { type BucketParams, type BucketState, type TakeResult, msUntilFull, takeToken } from './token-bucket';

export class MemoryTokenBucket {
  private readonly buckets = new Map<string, BucketState>();

  constructor(
    private readonly params: BucketParams,
    /** Above this many tokens tracked, full buckets are dropped (they equal fresh ones). */
    private readonly maxEntries = 100_000,
    private readonly now: () => number = Date.now,
  ) {}

  take(jti: string): TakeResult {
    const nowMs = this.now();
    const { state, result } = takeToken(this.buckets.get(jti), nowMs, this.params);
    // Re-insert so that the map's order is least recently used first.
    this.buckets.delete(jti);
    this.buckets.set(jti, state);
    if (this.buckets.size > this.maxEntries) this.evict(nowMs);
    return result;
  }

  get size(): number {
    return this.buckets.size;
  }

  private evict(nowMs: number): void {
    for (const [jti, state] of this.buckets) {
      if (nowMs - state.updatedAtMs >= msUntilFull(state, this.params)) this.buckets.delete(jti);
    }
    // Still too many busy tokens: forget the least recently used (they start full again).
    for (const jti of this.buckets.keys()) {
      if (this.buckets.size <= this.maxEntries) break;
      this.buckets.delete(jti);
    }
  }
}
