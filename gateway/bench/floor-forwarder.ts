// The least any gateway on this path must do per request, as a reference for the benchmark: read
// the client's request, take a token from the shared bucket in Redis (the gateway's own script and
// keys, one auto-pipelined EVALSHA, as decisions.md requires of every request), forward it over an
// undici keep-alive pool and stream the answer back. Nothing else: no token verification, no
// request id, no headers of its own, no access line, no span, no error shaping, no timeouts.
// Run as its own process on PORT, forwarding to ORDERS_URL. Not a gateway: never deploy it.
import http from 'node:http';
import { Redis } from 'ioredis';
import { Pool } from 'undici';
import { RedisTokenBucket } from '@ordering/rate-limit';

const upstream = new Pool(process.env.ORDERS_URL!, { connections: 64 });
const redis = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { enableAutoPipelining: true });
const prefix = process.env.REDIS_KEY_PREFIX ?? 'bench:floor:';
const bucket = new RedisTokenBucket(redis, `${prefix}ratelimit:`);
const unlimited = { capacity: 1e9, refillPerSecond: 1e9 };
// The revocation keys the gateway reads for a token (jti, subject, client, signing key).
const denylist = [
  `${prefix}revoked:jti:floor`,
  `${prefix}revoked:sub:floor`,
  `${prefix}revoked:client:floor`,
  `${prefix}revoked:kid:floor`,
];

const server = http.createServer((req, res) => {
  if (req.url === '/healthz') {
    res.end('ok');
    return;
  }
  bucket
    .takeAndRead('floor', denylist, unlimited)
    .then(() =>
      upstream.stream(
        { method: 'GET', path: req.url ?? '/', headers: { accept: 'application/json' } },
        ({ statusCode, headers }) => {
          res.statusCode = statusCode;
          res.setHeader('content-type', headers['content-type'] ?? 'application/json');
          if (headers['content-length']) res.setHeader('content-length', headers['content-length']);
          return res;
        },
      ),
    )
    .catch(() => {
      if (!res.headersSent) res.statusCode = 502;
      res.end();
    });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1');
process.on('SIGTERM', () => {
  redis.disconnect();
  server.close(() => process.exit(0));
});
