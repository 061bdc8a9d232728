// A clean-up every `intervalMs` (first run at start) as an entry point: what it removed is logged
// as counts, a failure is logged and retried at the next interval, stop waits for a run in flight.
import type { EntryPoint } from './entry-point';
import type { Logger } from './logger';

export function periodicJob(
  name: string,
  task: () => Promise<Record<string, number>>,
  logger: Logger,
  intervalMs = 15 * 60_000,
): EntryPoint {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  const runOnce = () => {
    running = (async () => {
      try {
        const counts = await task();
        if (Object.values(counts).some((n) => n > 0)) logger.info(counts, `${name}: purged`);
      } catch (err) {
        logger.warn({ err }, `${name} failed; retrying at the next interval`);
      }
    })();
  };
  return {
    name,
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
