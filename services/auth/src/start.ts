// The production process: load the configuration (refusing to start on a bad value), build the
// service and run its entry points until SIGTERM/SIGINT.
import { createLogger, runService } from '@ordering/http';
import { loadAuthConfig } from './config';
import { buildAuthService } from './service';

async function main(): Promise<void> {
  const config = loadAuthConfig();
  const logger = createLogger({ service: config.SERVICE_NAME, level: config.LOG_LEVEL });
  const built = await buildAuthService(config, { logger });
  await runService({
    service: config.SERVICE_NAME,
    logger,
    // Listed first so that it stops last, after HTTP has drained.
    entryPoints: [
      { name: 'resources', start: () => Promise.resolve(), stop: built.close },
      ...built.entryPoints,
    ],
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
