// The production process of a service, as its `start.ts` runs it:
//
//   node start.js           run the service until SIGTERM (serviceMain of @ordering/http)
//   node start.js migrate   create the service's database if absent, apply every pending migration,
//                           exit 0 (1 on failure): the chart's pre-install/pre-upgrade Job, which
//                           runs the new image before any pod of the new version starts
//
// The service still migrates at start (a no-op after the Job), so a rollout without the Job (the
// plain manifests of k8s/) never serves a new version on an unmigrated database either: a pod
// migrates before it listens, and is ready only after.
import { type Migration, createKnex, ensureDatabase, migrateLatest } from '@ordering/db';
import { type AssembledService, type Logger, createLogger, serviceMain } from '@ordering/http';

export const MIGRATE_COMMAND = 'migrate';

interface ProcessConfig {
  SERVICE_NAME: string;
  LOG_LEVEL: string;
  DATABASE_URL: string;
}

/** Creates and migrates the database of `config`; returns the names applied now. */
export async function migrateServiceDatabase(
  config: ProcessConfig,
  migrations: Migration[],
  logger: Logger,
): Promise<string[]> {
  await ensureDatabase(config.DATABASE_URL);
  const knex = createKnex({
    url: config.DATABASE_URL,
    service: `${config.SERVICE_NAME}-migrate`,
    pool: { max: 1 },
    logger,
  });
  try {
    const applied = await migrateLatest(knex, migrations);
    logger.info(
      { applied, known: migrations.length },
      applied.length > 0 ? 'database migrated' : 'database already up to date',
    );
    return applied;
  } finally {
    await knex.destroy();
  }
}

/** Runs `start.js` (the service) or `start.js migrate` (its migrations only), by the first argument. */
export function serviceProcess<C extends ProcessConfig>(
  loadConfig: () => C,
  build: (config: C, options: { logger: Logger }) => Promise<AssembledService>,
  migrations: Migration[],
  argv: string[] = process.argv.slice(2),
): void {
  if (argv.length > 0 && (argv[0] !== MIGRATE_COMMAND || argv.length > 1)) {
    console.error(`unknown arguments: ${argv.join(' ')} (usage: node start.js [${MIGRATE_COMMAND}])`);
    process.exit(2);
  }
  if (argv[0] !== MIGRATE_COMMAND) {
    serviceMain(loadConfig, build, []);
    return;
  }
  const main = async () => {
    const config = loadConfig();
    const logger = createLogger({ service: config.SERVICE_NAME, level: config.LOG_LEVEL });
    await migrateServiceDatabase(config, migrations, logger);
  };
  main().then(
    () => process.exit(0),
    (err: unknown) => {
      console.error(err);
      process.exit(1);
    },
  );
}
