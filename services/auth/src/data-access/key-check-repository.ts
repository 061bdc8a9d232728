// The check values of the service's keys (table key_checks): one row per key name.
import type { Knex } from 'knex';

export class KeyCheckRepository {
  constructor(private readonly db: Knex) {}

  async find(name: string): Promise<string | undefined> {
    const row = await this.db('key_checks').where({ name }).first<{ check_value: string } | undefined>();
    return row?.check_value;
  }

  /** Stores `value`; returns the value it replaced, if any. */
  async put(name: string, value: string, now: Date): Promise<string | undefined> {
    return this.db.transaction(async (trx) => {
      const previous = await trx('key_checks')
        .where({ name })
        .forUpdate()
        .first<{ check_value: string } | undefined>();
      await trx('key_checks')
        .insert({ name, check_value: value, updated_at: now })
        .onConflict('name')
        .merge();
      return previous?.check_value;
    });
  }
}
