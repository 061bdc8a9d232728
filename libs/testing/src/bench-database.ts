// A benchmark's own database, `<DATABASE_NAME_PREFIX><name>` on DATABASE_BASE_URL: migrated, seeded
// once and kept for the next run (seeding production-like volume takes minutes). BENCH_RESEED=1
// seeds it again; BENCH_DROP=1 drops it when the bench ends. The machine's load average is printed
// before the figures, which depend on it.
import os from 'node:os';
import {
  type Knex,
  type Migration,
  createKnex,
  dropDatabase,
  ensureDatabase,
  migrateLatest,
} from '@ordering/db';

/** A line of the bench's output (its figures go to stdout). */
const print = (line: string) => process.stdout.write(`${line}\n`);

export interface BenchDatabaseOptions {
  name: string;
  migrations: Migration[];
  /** A table the seed fills: while it is empty the database is not seeded yet. */
  seededTable: string;
  seed(trx: Knex.Transaction): Promise<void>;
  /** What the seed makes, for the line printed after it (`300,000 orders`). */
  describe: string;
}

export async function withBenchDatabase(
  options: BenchDatabaseOptions,
  run: (knex: Knex) => Promise<void>,
): Promise<void> {
  const base = process.env.DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432';
  const url = `${base}/${process.env.DATABASE_NAME_PREFIX ?? ''}${options.name}`;
  if (process.env.BENCH_RESEED === '1') await dropDatabase(url);
  await ensureDatabase(url);
  const knex = createKnex({ url, pool: { min: 1, max: 2 } });
  try {
    await migrateLatest(knex, options.migrations);
    const [{ n }] = (await knex(options.seededTable).count({ n: '*' })) as [{ n: string }];
    if (Number(n) === 0) {
      const started = Date.now();
      // In one transaction: an interrupted seed leaves no half volume behind.
      await knex.transaction((trx) => options.seed(trx));
      print(`seeded ${options.describe} in ${((Date.now() - started) / 1000).toFixed(0)} s`);
    }
    const load = os.loadavg().map((l) => l.toFixed(2));
    print(`load average ${load.join(' ')}, ${os.cpus().length} cores`);
    await run(knex);
  } finally {
    await knex.destroy();
    if (process.env.BENCH_DROP === '1') await dropDatabase(url);
  }
}
