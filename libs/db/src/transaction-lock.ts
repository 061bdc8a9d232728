// One way to make a kind of change take turns across every replica of a service: a PostgreSQL
// advisory lock held until the transaction ends, named by text (hashed to the lock's key). For
// changes a row lock cannot serialise: rows that may not exist yet, or a whole table's worth.
import type { Knex } from 'knex';

/** Waits until no other transaction holds `name`, then holds it until `trx` ends. */
export async function takeTransactionLock(trx: Knex | Knex.Transaction, name: string): Promise<void> {
  await trx.raw('select pg_advisory_xact_lock(hashtext(?))', [name]);
}
