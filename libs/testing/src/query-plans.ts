// What a call costs in PostgreSQL: the statements a knex pool sends during it, each explained with
// EXPLAIN ANALYZE (execution time, and the rows its scans read, which is what a page costs against
// what it shows). For the list-at-volume benches and the tests that bound the rows a page reads.
import type { Knex } from 'knex';

export interface PlanNode {
  'Node Type': string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

/** Rows the scans of the plan produced or threw away. */
export function rowsRead(node: PlanNode): number {
  const own = /Scan/.test(node['Node Type'])
    ? (node['Actual Rows'] + (node['Rows Removed by Filter'] ?? 0)) * node['Actual Loops']
    : 0;
  return own + (node.Plans ?? []).reduce((sum, child) => sum + rowsRead(child), 0);
}

/** A statement as knex sent it, with `?` placeholders (as `knex.raw` takes it). */
export interface SentStatement {
  sql: string;
  bindings: unknown[];
}

export interface StatementCost extends SentStatement {
  executionMs: number;
  rowsRead: number;
}

export interface StatementRecorder {
  /** The statements `call` sent (`call` runs once). */
  during(call: () => Promise<unknown>): Promise<SentStatement[]>;
}

/** Records what `knex` sends from now on. */
export function statementRecorder(knex: Knex): StatementRecorder {
  const sent: SentStatement[] = [];
  // The event shows the SQL as sent ($1, $2, ...); knex.raw takes `?`, bound in the same order.
  knex.on('query', (q: { sql: string; bindings?: unknown[] }) =>
    sent.push({ sql: q.sql.replace(/\$\d+/g, '?'), bindings: q.bindings ?? [] }),
  );
  return {
    async during(call) {
      sent.length = 0;
      await call();
      return [...sent];
    },
  };
}

/** EXPLAIN ANALYZE of one statement (it runs); `text`: also the plan as PostgreSQL prints it. */
export async function explainStatement(
  knex: Knex,
  statement: SentStatement,
  options: { text?: boolean } = {},
): Promise<StatementCost & { text?: string }> {
  const bindings = statement.bindings as Knex.RawBinding[];
  const { rows } = (await knex.raw(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${statement.sql}`, bindings)) as {
    rows: { 'QUERY PLAN': [{ Plan: PlanNode; 'Execution Time': number }] }[];
  };
  const plan = rows[0]!['QUERY PLAN'][0];
  const cost = { ...statement, executionMs: plan['Execution Time'], rowsRead: rowsRead(plan.Plan) };
  if (!options.text) return cost;
  const printed = (await knex.raw(`EXPLAIN (ANALYZE, BUFFERS) ${statement.sql}`, bindings)) as {
    rows: { 'QUERY PLAN': string }[];
  };
  return { ...cost, text: printed.rows.map((r) => r['QUERY PLAN']).join('\n') };
}

/** Every statement `call` sends, explained (`call` runs once, then each statement once more). */
export async function statementCosts(
  knex: Knex,
  recorder: StatementRecorder,
  call: () => Promise<unknown>,
  options: { text?: boolean } = {},
): Promise<(StatementCost & { text?: string })[]> {
  const costs = [];
  for (const statement of await recorder.during(call))
    costs.push(await explainStatement(knex, statement, options));
  return costs;
}

/** The median wall time of `runs` calls, in milliseconds. */
export async function medianMs(call: () => Promise<unknown>, runs: number): Promise<number> {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = process.hrtime.bigint();
    await call();
    times.push(Number(process.hrtime.bigint() - started) / 1e6);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}
