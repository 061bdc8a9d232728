// PostgreSQL and Redis are the machine's own servers on 127.0.0.1: checked, never started here.
import net from 'node:net';

export const DEFAULT_PG_ADMIN_URL = 'postgres://postgres@127.0.0.1:5432/postgres';
export const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';

export function tcpReachable(host: string, port: number, timeoutMs = 2000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/** Throws one message naming every server that does not answer, and how to start it. */
export async function assertLocalServers(
  pgUrl = process.env.DATABASE_ADMIN_URL ?? DEFAULT_PG_ADMIN_URL,
  redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL,
): Promise<void> {
  const pg = new URL(pgUrl);
  const redis = new URL(redisUrl);
  const missing: string[] = [];
  if (!(await tcpReachable(pg.hostname, Number(pg.port || 5432)))) {
    missing.push(
      `PostgreSQL is not reachable at ${pg.host}; start it with: ` +
        `pg_ctlcluster --skip-systemctl-redirect $(ls /etc/postgresql) main start`,
    );
  }
  if (!(await tcpReachable(redis.hostname, Number(redis.port || 6379)))) {
    missing.push(
      `Redis is not reachable at ${redis.host}; start it with: redis-server --daemonize yes --bind 127.0.0.1 ` +
        `--port 6379 --save "" --appendonly no`,
    );
  }
  if (missing.length > 0) throw new Error(`Missing infrastructure:\n  ${missing.join('\n  ')}`);
}
