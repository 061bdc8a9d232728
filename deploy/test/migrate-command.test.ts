// `node start.js migrate`, as the chart's pre-install/pre-upgrade Job runs it: for every process with
// migrations whose package has landed, the built bundle started with the Job's own settings (as the
// chart renders them, Secrets filled in) creates and migrates a fresh database on the real
// PostgreSQL and exits 0 without reaching Kafka or Redis (both pointed at closed ports); a second
// run changes nothing; an unknown argument exits 2 instead of starting the service.
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { withDatabase } from '@ordering/db';
import { PG_ADMIN_URL } from '@ordering/testing';
import { renderChart, repoRoot } from '../helm-tool/chart';
import { chartProcesses, enableLanded, landed, packageModule } from './support/chart-processes';
import type { K8sObject } from './support/renderings';

const run = promisify(execFile);
// Each run takes seconds; the bounds leave room for a machine busy with other work.
jest.setTimeout(240_000);

const processes = chartProcesses().filter((p) => p.migrations && landed(p));
const objects = renderChart<K8sObject>('production', { set: enableLanded() });
const suffix = randomBytes(4).toString('hex');
/** Each package's own list of migrations (loaded here: concurrent tests cannot require). */
const known = Object.fromEntries(
  processes.map((p) => [p.name, (packageModule(p).migrations as { name: string }[]).map((m) => m.name)]),
);
const databases: string[] = [];

afterAll(async () => {
  const client = new pg.Client({ connectionString: PG_ADMIN_URL });
  await client.connect();
  for (const db of databases) await client.query(`drop database if exists "${db}" with (force)`);
  await client.end();
});

/** The migration Job's container: its command and environment, Secrets filled in for this machine. */
function migrationJob(name: string, database: string) {
  const job = objects.find((o) => o.kind === 'Job' && o.metadata.name === `${name}-migrations`);
  if (!job) throw new Error(`Job/${name}-migrations is not rendered`);
  const c = job.spec.template.spec.containers[0];
  const env: Record<string, string> = { PATH: process.env.PATH ?? '' };
  for (const e of c.env) {
    if (e.value !== undefined) env[e.name] = e.value;
    else if (e.valueFrom?.secretKeyRef) env[e.name] = randomBytes(32).toString('hex');
  }
  env.DATABASE_URL = withDatabase(PG_ADMIN_URL, database);
  env.KEY_ENCRYPTION_KEY &&= randomBytes(32).toString('base64');
  // Nothing but PostgreSQL is reachable, as under the Job's network policy.
  env.KAFKA_BROKERS &&= '127.0.0.1:1';
  env.REDIS_URL &&= 'redis://127.0.0.1:1';
  env.OTEL_EXPORTER_OTLP_ENDPOINT &&= 'http://127.0.0.1:1';
  return { command: c.command as string[], env };
}

async function appliedMigrations(database: string): Promise<string[]> {
  const client = new pg.Client({ connectionString: withDatabase(PG_ADMIN_URL, database) });
  await client.connect();
  try {
    return (await client.query('select name from knex_migrations order by id')).rows.map(
      (r) => r.name as string,
    );
  } finally {
    await client.end();
  }
}

it('covers every landed process with migrations', () => {
  expect(processes.map((p) => p.name)).toEqual(expect.arrayContaining(['auth', 'customers', 'webhooks']));
});

describe.each(processes.map((p) => [p.name, p] as const))('%s', (name, p) => {
  const database = `test_migrate_${name}_${suffix}`;
  databases.push(database);
  const dist = path.join(repoRoot, p.package, 'dist');

  it.concurrent(
    "the Job's command creates and migrates the database, then exits 0; again, it changes nothing",
    async () => {
      const { command, env } = migrationJob(name, database);
      const [node, ...args] = command;
      expect(node).toBe('node');
      const first = await run(process.execPath, args, { cwd: dist, env, timeout: 90_000 });
      expect(known[name]!.length).toBeGreaterThan(0);
      expect(await appliedMigrations(database)).toEqual(known[name]);
      expect(first.stdout).toContain('database migrated');
      const second = await run(process.execPath, args, { cwd: dist, env, timeout: 90_000 });
      expect(second.stdout).toContain('database already up to date');
      expect(await appliedMigrations(database)).toEqual(known[name]);
    },
  );

  it.concurrent(
    'an argument the process does not know exits 2 at once, without starting the service',
    async () => {
      const { env } = migrationJob(name, database);
      const failed = await run(process.execPath, ['start.js', 'migrat'], {
        cwd: dist,
        env,
        timeout: 90_000,
      }).then(
        () => ({ code: 0, stderr: '' }),
        (err: { code: number; stderr: string }) => err,
      );
      expect(failed.code).toBe(2);
      expect(failed.stderr).toContain('usage: node start.js [migrate]');
    },
  );
});
