// Periodic clean-up, every `intervalMs` (first run at start): idempotency keys past their 24 h
// window and sign-in failure counts past theirs.
import type { EntryPoint, Logger } from '@ordering/http';
import type { IdempotencyStore } from '@ordering/idempotency';
import type { Credentials } from '../../domain/credentials-use-case';

export function maintenanceJob(
  deps: { idempotency: IdempotencyStore; credentials: Credentials },
  logger: Logger,
  intervalMs = 15 * 60_000,
): EntryPoint {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const runOnce = () => {
    running = (async () => {
      try {
        const keys = await deps.idempotency.purgeExpired();
        const failures = await deps.credentials.purgeStaleFailures();
        if (keys + failures > 0) logger.info({ idempotency_keys: keys, login_failures: failures }, 'purged');
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
