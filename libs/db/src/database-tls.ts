// TLS towards PostgreSQL, read once for every service from the environment (the chart sets them from
// postgresql.tls) and applied to every client libs/db makes (the pool and ensureDatabase's):
//   DATABASE_SSL_MODE    disable (default) | require (encrypted, server not verified) |
//                        verify-full (encrypted, certificate and host name checked)
//   DATABASE_SSL_CA_FILE PEM CA certificate(s) of the server for verify-full (default: system CAs)
// An `sslmode` in DATABASE_URL itself takes precedence (node-postgres reads the URL last).
import fs from 'node:fs';
import type { ConnectionOptions } from 'node:tls';

export const DATABASE_SSL_MODES = ['disable', 'require', 'verify-full'] as const;

/** node-postgres's `ssl` option for the environment: false, or the TLS options to connect with. */
export function databaseTlsFromEnv(env: NodeJS.ProcessEnv = process.env): false | ConnectionOptions {
  const mode = env.DATABASE_SSL_MODE || 'disable';
  if (!(DATABASE_SSL_MODES as readonly string[]).includes(mode)) {
    throw new Error(`DATABASE_SSL_MODE must be one of ${DATABASE_SSL_MODES.join(', ')}, got '${mode}'`);
  }
  const caFile = env.DATABASE_SSL_CA_FILE;
  if (caFile && mode !== 'verify-full')
    throw new Error('DATABASE_SSL_CA_FILE needs DATABASE_SSL_MODE=verify-full');
  if (mode === 'disable') return false;
  if (mode === 'require') return { rejectUnauthorized: false };
  if (!caFile) return { rejectUnauthorized: true };
  try {
    return { rejectUnauthorized: true, ca: fs.readFileSync(caFile, 'utf8') };
  } catch (err) {
    throw new Error(`DATABASE_SSL_CA_FILE: cannot read ${caFile}`, { cause: err });
  }
}
