// Forgets idempotency keys past their 24 h window, every `intervalMs` (first run at start).
import type { EntryPoint, Logger } from '@ordering/http';
import type { IdempotencyStore } from '../../data-access/idempotency-store';

export function idempotencyPurgeJob(
  store: IdempotencyStore,
  logger: Logger,
  intervalMs = 15 * 60_000,
): EntryPoint {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const runOnce = () => {
    running = store
      .purgeExpired()
      .then((n) => {
        if (n > 0) logger.info({ purged: n }, 'expired idempotency keys purged');
      })
      .catch((err: unknown) => logger.warn({ err }, 'purging idempotency keys failed; retrying later'));
  };
  return {
    name: 'idempotency-purge',
    start: async () => {
      runOnce();
      timer = setInterval(runOnce, intervalMs);
      timer.unref();
    },
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
