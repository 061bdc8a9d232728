// Periodic clean-up, every `intervalMs` (first run at start): idempotency keys past their 24 h window.
import type { EntryPoint, Logger } from '@ordering/http';
import type { IdempotencyStore } from '@ordering/idempotency';

export function maintenanceJob(
  idempotency: IdempotencyStore,
  logger: Logger,
  intervalMs = 15 * 60_000,
): EntryPoint {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const runOnce = () => {
    running = (async () => {
      try {
        const keys = await idempotency.purgeExpired();
        if (keys > 0) logger.info({ idempotency_keys: keys }, 'purged');
      } catch (err) {
        logger.warn({ err }, 'maintenance failed; retrying at the next interval');
      }
    })();
  };
  return {
    name: 'maintenance',
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
