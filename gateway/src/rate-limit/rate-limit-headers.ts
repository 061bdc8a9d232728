// The rate-limit headers every response after authentication carries (decisions.md "Rate limits").
import type { TakeResult } from './token-bucket';

export function setRateLimitHeaders(
  res: { setHeader(name: string, value: string): unknown },
  limitPerSecond: number,
  result: TakeResult,
): void {
  res.setHeader('X-RateLimit-Limit', String(limitPerSecond));
  res.setHeader('X-RateLimit-Remaining', String(result.remaining));
  res.setHeader('X-RateLimit-Reset', String(result.resetSeconds));
}
