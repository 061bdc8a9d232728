// The rate-limit headers every API answer carries (decisions.md "Rate limits"), and the 429 of an
// empty bucket.
import { RateLimitError } from '@ordering/errors';
import { platformMetrics } from '@ordering/telemetry';
import type { TakeResult } from '@ordering/rate-limit';

export function setRateLimitHeaders(
  res: { setHeader(name: string, value: string): unknown },
  limitPerSecond: number,
  result: TakeResult,
): void {
  res.setHeader('X-RateLimit-Limit', String(limitPerSecond));
  res.setHeader('X-RateLimit-Remaining', String(result.remaining));
  res.setHeader('X-RateLimit-Reset', String(result.resetSeconds));
}

/**
 * Sets the headers of `result`; throws 429 `rate_limit_exceeded` when its bucket (a token's or a
 * client address's) was empty.
 */
export function enforceRateLimit(
  res: { setHeader(name: string, value: string): unknown },
  limitPerSecond: number,
  result: TakeResult,
  bucket: 'token' | 'address',
): void {
  setRateLimitHeaders(res, limitPerSecond, result);
  if (!result.allowed) {
    platformMetrics().rateLimitRefusals.add(1);
    throw new RateLimitError(result.retryAfterSeconds, bucket);
  }
}
