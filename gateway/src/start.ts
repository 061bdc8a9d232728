// The gateway process: configuration from the environment, then run until SIGTERM/SIGINT.
import { createLogger, routeConsoleTo, runService } from '@ordering/http';
import { startTelemetry, telemetryEntryPoint } from '@ordering/telemetry';
import { loadGatewayConfig } from './config';
import { createGateway } from './gateway';

async function main(): Promise<void> {
  const config = loadGatewayConfig();
  // Already started by `--require register-telemetry.js` in a container; started here otherwise.
  startTelemetry({ service: config.SERVICE_NAME });
  const logger = createLogger({ service: config.SERVICE_NAME, level: config.LOG_LEVEL });
  routeConsoleTo(logger);
  const gateway = createGateway(config, { logger });
  // Telemetry first, so it stops last: the spans of the shutdown are flushed before the exit.
  await runService({
    service: config.SERVICE_NAME,
    logger,
    entryPoints: [telemetryEntryPoint(), ...gateway.entryPoints],
  });
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
