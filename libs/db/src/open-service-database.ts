// A service's own database at start-up: created if absent, connected, migrated to the latest.
import type { Knex } from 'knex';
import { createKnex, type CreateKnexOptions } from './create-knex';
import { ensureDatabase } from './ensure-database';
import { migrateLatest, type Migration } from './migrations';

/** Creates the database if needed and migrates it; the pool is closed again if migrating fails. */
export async function openServiceDatabase(
  options: CreateKnexOptions & { migrations: Migration[] },
): Promise<Knex> {
  const { migrations, ...knexOptions } = options;
  await ensureDatabase(options.url);
  const knex = createKnex(knexOptions);
  try {
    await migrateLatest(knex, migrations);
    return knex;
  } catch (err) {
    await knex.destroy();
    throw err;
  }
}
