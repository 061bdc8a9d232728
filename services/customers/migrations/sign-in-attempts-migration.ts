// Sign-in attempts counted per login and client address (the slow-down and the tight refusal), so
// that failures sent from one address cannot lock the user out of their own; `login_failures`
// becomes the per-login ceiling across addresses, over a fixed window from `window_started_at` (a
// count that only ever restarted after a quiet window would let a patient stranger, one attempt an
// hour, keep any login at its ceiling for good).
import type { Knex } from 'knex';

export const signInAttemptsMigration = {
  name: '20261125000100_sign_in_attempts_by_address',
  async up(knex: Knex): Promise<void> {
    await knex.schema.createTable('login_address_failures', (t) => {
      t.text('login_key').notNullable();
      // The auth service's counting address (an IPv4 address, an IPv6 /64); '' for a caller that
      // sends none.
      t.text('client_address').notNullable();
      t.integer('failures').notNullable();
      t.timestamp('last_failure_at', { useTz: true }).notNullable();
      t.primary(['login_key', 'client_address']);
    });
    // A default, so that the previous version's pods, still serving during the rolling upgrade
    // after this migration ran, keep inserting counts without naming the column.
    await knex.schema.alterTable('login_failures', (t) => {
      t.timestamp('window_started_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    });
    await knex('login_failures').update({ window_started_at: knex.ref('last_failure_at') });
  },
  async down(knex: Knex): Promise<void> {
    await knex.schema.alterTable('login_failures', (t) => {
      t.dropColumn('window_started_at');
    });
    await knex.schema.dropTable('login_address_failures');
  },
};
