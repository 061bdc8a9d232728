// Migrations as code. Services are bundled with esbuild, so knex cannot load migrations from a
// folder at run time: each service lists them, in order, in `migrations/index.ts`.
import type { Knex } from 'knex';

export interface Migration {
  /** Unique, and increasing along the list (e.g. `20261120120000_create_orders`). */
  name: string;
  up(knex: Knex): Promise<void>;
  down(knex: Knex): Promise<void>;
  /** false: run outside a transaction (e.g. CREATE INDEX CONCURRENTLY). Default: in one. */
  transaction?: boolean;
}

/** Refuses duplicate or out-of-order names: a list edited wrongly would run differently per database. */
export function assertMigrationList(migrations: Migration[]): void {
  const seen = new Set<string>();
  let previous = '';
  for (const m of migrations) {
    if (!m.name) throw new Error('A migration has no name');
    if (seen.has(m.name)) throw new Error(`Migration listed twice: ${m.name}`);
    if (m.name <= previous)
      throw new Error(`Migration ${m.name} is listed after ${previous}; keep the list in order`);
    seen.add(m.name);
    previous = m.name;
  }
}

export function migrationSource(migrations: Migration[]): Knex.MigrationSource<Migration> {
  assertMigrationList(migrations);
  return {
    getMigrations: async () => migrations,
    getMigrationName: (m) => m.name,
    getMigration: async (m) => ({
      up: (k: Knex) => m.up(k),
      down: (k: Knex) => m.down(k),
      ...(m.transaction === false ? { config: { transaction: false } } : {}),
    }),
  };
}

function config(migrations: Migration[]): Knex.MigratorConfig {
  return { migrationSource: migrationSource(migrations) };
}

/**
 * Applies every pending migration (each in its own transaction); returns the names applied.
 *
 * A database may hold migrations this build does not list, all newer than any it lists: a newer
 * release migrated it, and this one is its rollback (`helm rollback`, `kubectl rollout undo`).
 * Migrations are additive, so the older build runs on the newer schema (docs/operations.md); knex
 * alone would refuse to start ("the migration directory is corrupt") and the rollback would crash
 * in a loop. An unknown migration older than a listed one is a list edited wrongly: refused.
 */
export async function migrateLatest(knex: Knex, migrations: Migration[]): Promise<string[]> {
  const newestListed = migrations.at(-1)?.name ?? '';
  const listed = new Set(migrations.map((m) => m.name));
  const unlisted = (await appliedMigrations(knex)).filter((name) => !listed.has(name));
  const misplaced = unlisted.filter((name) => name <= newestListed);
  if (misplaced.length > 0) {
    throw new Error(
      `The database has migrations this build does not list, older than its newest (${newestListed}): ${misplaced.join(', ')}`,
    );
  }
  const [, applied] = (await knex.migrate.latest({
    ...config(migrations),
    // Checked above: only a newer release's migrations may be missing from the list.
    disableMigrationsListValidation: unlisted.length > 0,
  })) as [number, string[]];
  return applied;
}

/** Applies the next pending migration; returns its name (none when up to date). */
export async function migrateUp(knex: Knex, migrations: Migration[]): Promise<string[]> {
  const [, applied] = (await knex.migrate.up(config(migrations))) as [number, string[]];
  return applied;
}

/** Reverts the last applied migration; returns its name. */
export async function migrateDown(knex: Knex, migrations: Migration[]): Promise<string[]> {
  const [, reverted] = (await knex.migrate.down(config(migrations))) as [number, string[]];
  return reverted;
}

/** Reverts every applied migration, newest first; returns their names. */
export async function migrateRollbackAll(knex: Knex, migrations: Migration[]): Promise<string[]> {
  const [, reverted] = (await knex.migrate.rollback(config(migrations), true)) as [number, string[]];
  return reverted;
}

/** Names of applied migrations, oldest first. */
export async function appliedMigrations(knex: Knex): Promise<string[]> {
  if (!(await knex.schema.hasTable('knex_migrations'))) return [];
  const rows = await knex('knex_migrations').select('name').orderBy('id');
  return rows.map((r: { name: string }) => r.name);
}
