// Small helpers on postgres:// URLs: which database a URL names, the same server with another one.

/** PostgreSQL truncates identifiers longer than this many bytes; we refuse them instead. */
export const MAX_IDENTIFIER_BYTES = 63;

export function databaseNameOf(url: string): string {
  const name = decodeURIComponent(new URL(url).pathname.replace(/^\//, ''));
  if (!name) throw new Error('The database URL names no database (postgres://host:port/<database>)');
  return name;
}

export function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${encodeURIComponent(database)}`;
  return u.toString();
}

/** `host:port` of a URL, for messages (never the credentials). */
export function serverOf(url: string): string {
  const u = new URL(url);
  return `${u.hostname}:${u.port || '5432'}`;
}

/** A double-quoted SQL identifier. */
export function quoteIdentifier(name: string): string {
  if (Buffer.byteLength(name) > MAX_IDENTIFIER_BYTES) {
    throw new Error(`Database identifier longer than ${MAX_IDENTIFIER_BYTES} bytes: ${name}`);
  }
  if (name.includes('\0')) throw new Error('Database identifier contains a NUL byte');
  return `"${name.replace(/"/g, '""')}"`;
}
