// Production entry: load the environment, build the service, run its entry points until SIGTERM.
import { createLogger, runService } from '@ordering/http';
import { loadWebhooksConfig } from './config';
import { buildWebhooksService } from './service';

async function main(): Promise<void> {
  const config = loadWebhooksConfig();
  const logger = createLogger({ service: config.SERVICE_NAME, level: config.LOG_LEVEL });
  const service = await buildWebhooksService(config, { logger });
  await runService({
    service: config.SERVICE_NAME,
    logger,
    // Entry points stop in reverse order: the pool (listed first) closes after all the others.
    entryPoints: [
      { name: 'resources', start: async () => {}, stop: () => service.close() },
      ...service.entryPoints,
    ],
  });
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
