// A CLIENT span per database query, from knex's query events (no driver patching). Only inside a
// recorded trace: a query outside any request or message (the relay's polling, a purge) makes no
// span, and a request sampled out pays one map lookup per query. The statement is recorded as knex
// sends it, with placeholders: bound values (personal data, secrets) never reach a span.
import { context, SpanKind, SpanStatusCode, trace, type Span } from '@opentelemetry/api';
import { tracer } from './spans';

/** What knex passes with its `query`, `query-response` and `query-error` events. */
interface QueryData {
  __knexQueryUid?: string;
  sql?: string;
  method?: string;
}

/** The part of a knex instance this needs (an EventEmitter). */
export interface QueryEventSource {
  on(event: 'query', fn: (data: QueryData) => void): unknown;
  on(event: 'query-response', fn: (response: unknown, data: QueryData) => void): unknown;
  on(event: 'query-error', fn: (err: Error, data: QueryData) => void): unknown;
}

const MAX_STATEMENT = 2000;

/** `SELECT users`, `INSERT outbox`, `BEGIN`: the operation and the first table named. */
export function querySpanName(sql: string): string {
  let name = spanNames.get(sql);
  if (name === undefined) {
    if (spanNames.size >= SPAN_NAMES_LIMIT) spanNames.clear();
    name = spanNameOf(sql);
    spanNames.set(sql, name);
  }
  return name;
}

// A service sends a few dozen distinct statements (knex writes them with placeholders): the name of
// each is worked out once instead of by two regular expressions per query.
const spanNames = new Map<string, string>();
const SPAN_NAMES_LIMIT = 1000;

function spanNameOf(sql: string): string {
  const operation = /^\s*(\w+)/.exec(sql)?.[1]?.toUpperCase() ?? 'QUERY';
  const table = /\b(?:from|into|update|join)\s+"?([A-Za-z_][\w.]*)"?/i.exec(sql)?.[1];
  return table ? `${operation} ${table}` : operation;
}

export function traceKnexQueries(db: QueryEventSource, options: { dbName?: string } = {}): void {
  const open = new Map<string, Span>();
  const dbName = options.dbName;

  db.on('query', (data) => {
    const uid = data.__knexQueryUid;
    if (!uid || !trace.getSpan(context.active())?.isRecording()) return;
    const sql = data.sql ?? '';
    const statement = sql.length > MAX_STATEMENT ? `${sql.slice(0, MAX_STATEMENT)}...` : sql;
    const span = tracer().startSpan(querySpanName(sql), {
      kind: SpanKind.CLIENT,
      attributes: dbName
        ? { 'db.system.name': 'postgresql', 'db.namespace': dbName, 'db.query.text': statement }
        : { 'db.system.name': 'postgresql', 'db.query.text': statement },
    });
    open.set(uid, span);
  });
  db.on('query-response', (_response, data) => {
    const uid = data.__knexQueryUid;
    if (!uid) return;
    const span = open.get(uid);
    if (!span) return;
    open.delete(uid);
    span.end();
  });
  db.on('query-error', (err, data) => {
    const uid = data.__knexQueryUid;
    if (!uid) return;
    const span = open.get(uid);
    if (!span) return;
    open.delete(uid);
    span.recordException(err);
    span.setStatus({ code: SpanStatusCode.ERROR, message: err.message });
    span.end();
  });
}
