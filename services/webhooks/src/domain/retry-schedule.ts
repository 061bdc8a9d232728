// When a failed delivery is tried again (decisions.md "Webhooks"): exponential backoff with jitter
// from about 30 s, doubling up to 3 h between attempts, until 24 h after the first attempt; the
// last attempt is at the horizon itself, after which the delivery is `failed`. A receiver's
// `Retry-After` (on 429 and 503) longer than the backoff is honoured, within the horizon.
export const RETRY_HORIZON_MS = 24 * 60 * 60 * 1000;
export const FIRST_RETRY_MS = 30_000;
export const MAX_RETRY_INTERVAL_MS = 3 * 60 * 60 * 1000;

/** Backoff before retry number `attempt` (1 = after the first failure), jittered to 75..125 %. */
export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const base = Math.min(FIRST_RETRY_MS * 2 ** Math.max(0, attempt - 1), MAX_RETRY_INTERVAL_MS);
  return Math.round(base * (0.75 + random() * 0.5));
}

/** `Retry-After` as milliseconds (delay-seconds or an HTTP date), or undefined when absent/invalid. */
export function retryAfterMs(value: string | undefined, now: Date): number | undefined {
  if (value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d{1,9}$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now.getTime());
}

/**
 * The next attempt after a failure at `now`, or null when the horizon has passed (the delivery
 * fails for good). `attemptCount` is how many attempts were made, this one included.
 */
export function nextAttemptAt(input: {
  now: Date;
  firstAttemptAt: Date;
  attemptCount: number;
  retryAfterMs?: number;
  random?: () => number;
}): Date | null {
  const horizon = input.firstAttemptAt.getTime() + RETRY_HORIZON_MS;
  const now = input.now.getTime();
  if (now >= horizon) return null;
  // Retry-After may ask us to wait longer, never to come back sooner: a receiver answering 429 with
  // `Retry-After: 1` would otherwise be tried every second for 24 h (86,400 attempts, each kept).
  const backoff = backoffMs(input.attemptCount, input.random);
  const delay = input.retryAfterMs !== undefined ? Math.max(backoff, input.retryAfterMs) : backoff;
  return new Date(Math.min(now + delay, horizon));
}
