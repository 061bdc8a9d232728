// A token bucket as plain arithmetic: a bucket holds up to `capacity` tokens, refills continuously
// at `refillPerSecond` (a fraction for a slow bucket: 1/30 is one every 30 s), and each request
// takes one. The gateway's per-token limit of decisions.md "Rate limits" and the auth service's
// token endpoint limits are such buckets. The Redis script (redis-token-bucket.ts) does exactly
// this; the in-process fallback (memory-token-bucket.ts) uses it.

export interface BucketParams {
  capacity: number;
  refillPerSecond: number;
}

export interface BucketState {
  tokens: number;
  updatedAtMs: number;
}

export interface TakeResult {
  allowed: boolean;
  /** Whole requests that would pass right now. */
  remaining: number;
  /** Whole seconds until the bucket is full again. */
  resetSeconds: number;
  /** Whole seconds (>= 1) until one request passes; 0 when allowed. */
  retryAfterSeconds: number;
}

export function takeToken(
  state: BucketState | undefined,
  nowMs: number,
  params: BucketParams,
): { state: BucketState; result: TakeResult } {
  const { capacity, refillPerSecond } = params;
  let tokens = capacity;
  if (state) {
    const elapsedMs = Math.max(0, nowMs - state.updatedAtMs);
    tokens = Math.min(capacity, state.tokens + (elapsedMs * refillPerSecond) / 1000);
  }
  const allowed = tokens >= 1;
  if (allowed) tokens -= 1;
  return {
    state: { tokens, updatedAtMs: nowMs },
    result: {
      allowed,
      remaining: Math.floor(tokens),
      resetSeconds: Math.ceil((capacity - tokens) / refillPerSecond),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / refillPerSecond)),
    },
  };
}

/** Milliseconds until a bucket in `state` is full again (then it equals a fresh bucket). */
export function msUntilFull(state: BucketState, params: BucketParams): number {
  return Math.ceil(((params.capacity - state.tokens) * 1000) / params.refillPerSecond);
}
