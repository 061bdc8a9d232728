// Exponential backoff with full jitter, and a sleep that can be cut short.
export interface BackoffOptions {
  /** First delay; default 200 ms. */
  initialMs?: number;
  /** Longest delay; default 30 s. */
  maxMs?: number;
}

/** Delay before retry number `attempt` (1-based): random in [d/2, d], d = min(max, initial * 2^(attempt-1)). */
export function backoffDelay(
  attempt: number,
  options: BackoffOptions = {},
  random: () => number = Math.random,
): number {
  const initial = options.initialMs ?? 200;
  const max = options.maxMs ?? 30_000;
  const ceiling = Math.min(max, initial * 2 ** Math.max(0, attempt - 1));
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/** A sleep that `wake()` ends early (all current sleepers). */
export class Waker {
  private waiters = new Set<() => void>();
  private pending = false;

  /** Resolves after `ms`, or at once if `wake()` was called since the last sleep, or when it is. */
  sleep(ms: number): Promise<void> {
    if (this.pending) {
      this.pending = false;
      return Promise.resolve();
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
    });
  }

  wake(): void {
    if (this.waiters.size === 0) this.pending = true;
    for (const w of [...this.waiters]) w();
  }
}
