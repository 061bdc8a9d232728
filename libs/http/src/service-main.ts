// One life cycle for every service. A service assembles itself (`build<Name>Service`) into entry
// points plus the resources they share (database pool, health clients); `serviceMain` runs that
// as the production process, `startInProcess` runs it inside a test or e2e harness.
import { startTelemetry, telemetryEntryPoint } from '@ordering/telemetry';
import { runService, type EntryPoint, type RunningService } from './entry-point';
import { createLogger, routeConsoleTo, type Logger } from './logger';

export interface AssembledService {
  entryPoints: EntryPoint[];
  /** Closes what the entry points do not own; runs after every entry point has stopped. */
  close(): Promise<void>;
}

/** The entry points with the shared resources first, so that they close last. */
export function withResources(service: AssembledService): EntryPoint[] {
  return [
    { name: 'resources', start: () => Promise.resolve(), stop: () => service.close() },
    ...service.entryPoints,
  ];
}

/** Starts the entry points in order in this process (no signal handling); `stop()` reverses it. */
export async function startInProcess(
  service: AssembledService,
  options: { service: string; logger: Logger },
): Promise<RunningService> {
  // On a failed start runService stops what it started, the resources included.
  return runService({ ...options, entryPoints: withResources(service), signals: [] });
}

/**
 * The production process: load the configuration (refusing to start on a bad value), assemble the
 * service, run it until SIGTERM/SIGINT. Any failure before it runs is printed and exits 1. A command
 * line argument it does not know (e.g. `migrate` to a process without that mode) exits 2 at once,
 * rather than starting the service where a one-off task was meant.
 */
export function serviceMain<C extends { SERVICE_NAME: string; LOG_LEVEL: string }>(
  loadConfig: () => C,
  build: (config: C, options: { logger: Logger }) => Promise<AssembledService>,
  argv: string[] = process.argv.slice(2),
): void {
  if (argv.length > 0) {
    console.error(`unknown arguments: ${argv.join(' ')} (usage: node start.js)`);
    process.exit(2);
  }
  const main = async () => {
    const config = loadConfig();
    // Already started by `--require register-telemetry.js` in a container; started here otherwise.
    startTelemetry({ service: config.SERVICE_NAME });
    const logger = createLogger({ service: config.SERVICE_NAME, level: config.LOG_LEVEL });
    routeConsoleTo(logger);
    const service = await build(config, { logger });
    await runService({
      service: config.SERVICE_NAME,
      logger,
      // First, so it stops last: the spans of the shutdown itself are flushed before the exit.
      entryPoints: [telemetryEntryPoint(), ...withResources(service)],
    });
  };
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
