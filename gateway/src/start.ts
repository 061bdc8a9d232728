// The gateway process: configuration from the environment, then run until SIGTERM/SIGINT.
import { createLogger, runService } from '@ordering/http';
import { loadGatewayConfig } from './config';
import { createGateway } from './gateway';

async function main(): Promise<void> {
  const config = loadGatewayConfig();
  const logger = createLogger({ service: config.SERVICE_NAME, level: config.LOG_LEVEL });
  const gateway = createGateway(config, { logger });
  await runService({ service: config.SERVICE_NAME, logger, entryPoints: gateway.entryPoints });
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
});
