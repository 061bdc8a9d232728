// TLS towards Redis, read once from the environment by every process that uses Redis (the gateway
// and auth): a `rediss://` REDIS_URL turns TLS on (ioredis, system CAs); REDIS_TLS_CA_FILE names the
// PEM CA certificate(s) of a server with a private CA (the chart mounts it from redis.tls.caSecret).
import fs from 'node:fs';

/** ioredis options to spread into the client's: `{ tls: { ca } }` with a CA file, else nothing. */
export function redisTlsFromEnv(env: NodeJS.ProcessEnv = process.env): { tls?: { ca: string } } {
  const caFile = env.REDIS_TLS_CA_FILE;
  if (!caFile) return {};
  try {
    return { tls: { ca: fs.readFileSync(caFile, 'utf8') } };
  } catch (err) {
    throw new Error(`REDIS_TLS_CA_FILE: cannot read ${caFile}`, { cause: err });
  }
}
