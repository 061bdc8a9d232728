// CPU per request of several gateway builds side by side, on the trivial upstream, alternating
// runs (for finding what made the gateway dearer: a build of an older commit against this one).
//
//   BUILDS='old=/tmp/old/gateway/dist/start.js new=gateway/dist/start.js' tsx gateway/bench/compare-builds.ts
//   A build may start with telemetry: 'on=--require,gateway/dist/register-telemetry.js,gateway/dist/start.js'
//   and set variables of its own: 'r0=OTEL_TRACES_SAMPLER_ARG=0,--require,...' (NAME=value items)
//   BENCH_SECONDS=8 ROUNDS=3 BENCH_CONNECTIONS=50 BENCH_PORTS=18400-18499
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import autocannon from 'autocannon';
import jwt from 'jsonwebtoken';
import { processCpuMs } from '@ordering/testing';
import { freePort, listenOnFreePort } from './bench-ports';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const children: ChildProcess[] = [];

async function start(args: string[], env: NodeJS.ProcessEnv, port: number, probe: string) {
  const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(child);
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    if (
      await fetch(`${url}${probe}`).then(
        (r) => r.status < 500,
        () => false,
      )
    )
      return { child, url };
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${args.join(' ')} did not start`);
}

async function main() {
  const builds = (process.env.BUILDS ?? '')
    .split(/\s+/)
    .filter(Boolean)
    .map((b) => {
      const eq = b.indexOf('=');
      const name = b.slice(0, eq);
      const spec = b.slice(eq + 1);
      const items = spec.split(',');
      const isEnv = (a: string) => /^[A-Z_][A-Z0-9_]*=/.test(a);
      const env = Object.fromEntries(
        items.filter(isEnv).map((a) => [a.slice(0, a.indexOf('=')), a.slice(a.indexOf('=') + 1)]),
      );
      const args = items.filter((a) => !isEnv(a)).map((a) => (a.startsWith('-') ? a : path.resolve(a)));
      return { name, args, env };
    });
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = randomUUID();
  const jwksBody = JSON.stringify({
    keys: [{ ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' }],
  });
  const jwks = http.createServer((_q, r) =>
    r.writeHead(200, { 'content-type': 'application/json' }).end(jwksBody),
  );
  const issuer = `http://127.0.0.1:${await listenOnFreePort(jwks)}`;
  const sink = http.createServer((q, r) => {
    q.resume();
    q.on('end', () => r.writeHead(200).end());
  });
  const sinkUrl = `http://127.0.0.1:${await listenOnFreePort(sink)}`;
  const audience = 'https://api.bench.test';
  const token = jwt.sign(
    { scope: 'orders:read', client_id: 'bench', cust_id: 'ACME', login: 'alice' },
    privateKey,
    {
      algorithm: 'RS256',
      keyid: kid,
      // RFC 9068: the gateway takes only JWTs typed as access tokens.
      header: { alg: 'RS256', typ: 'at+jwt' },
      issuer,
      audience,
      subject: 'shopper:acme:alice',
      expiresIn: 3600,
      jwtid: randomUUID(),
    },
  );
  const upPort = await freePort();
  const upstream = await start(
    ['--import', 'tsx', path.join(__dirname, 'json-upstream.ts')],
    { ...process.env, NODE_ENV: 'production', PORT: String(upPort) },
    upPort,
    '/v1/orders/ord_123',
  );
  const gateways = [];
  for (const b of builds) {
    const port = await freePort();
    const on = b.args.includes('--require');
    const { OTEL_SDK_DISABLED: _o, ...env } = process.env;
    gateways.push({
      ...b,
      ...(await start(
        b.args,
        {
          ...env,
          NODE_ENV: 'production',
          LOG_LEVEL: process.env.GATEWAY_LOG_LEVEL ?? 'info',
          PORT: String(port),
          HOST: '127.0.0.1',
          AUTH_JWKS_URL: `${issuer}/oauth/jwks.json`,
          AUTH_ISSUER: issuer,
          API_AUDIENCE: audience,
          INTERNAL_IDENTITY_SECRET: 'bench-identity-secret-of-at-least-32-characters',
          REDIS_KEY_PREFIX: `bench:${randomUUID()}:`,
          RATE_LIMIT_CAPACITY: '1000000000',
          RATE_LIMIT_REFILL_PER_SECOND: '1000000000',
          ORDERS_URL: upstream.url,
          OTEL_SERVICE_NAME: 'gateway',
          ...(on
            ? {
                OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl,
                OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
                OTEL_TRACES_SAMPLER_ARG: process.env.BENCH_SAMPLE_RATIO ?? '1',
              }
            : { OTEL_SDK_DISABLED: 'true' }),
          ...b.env,
        },
        port,
        '/healthz',
      )),
    });
  }
  const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
  const results = new Map<string, { cpu: number; rps: number }[]>(gateways.map((g) => [g.name, []]));
  for (const g of gateways)
    await autocannon({ url: `${g.url}/v1/orders/ord_123`, connections: CONNECTIONS, duration: 2, headers });
  for (let round = 0; round < ROUNDS; round++) {
    for (const g of gateways) {
      const before = processCpuMs(g.child.pid!);
      const r = await autocannon({
        url: `${g.url}/v1/orders/ord_123`,
        connections: CONNECTIONS,
        duration: SECONDS,
        headers,
      });
      if (r.non2xx || r.errors) console.error(`${g.name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
      results.get(g.name)!.push({
        cpu: ((processCpuMs(g.child.pid!) - before) * 1000) / r.requests.total,
        rps: r.requests.average,
      });
    }
  }
  for (const [name, rs] of results) {
    const cpus = rs.map((r) => r.cpu).sort((a, b) => a - b);
    console.log(
      `${name.padEnd(12)} CPU µs/request ${rs.map((r) => r.cpu.toFixed(0)).join(', ')} (min ${cpus[0]!.toFixed(0)}, median ${cpus[Math.floor(cpus.length / 2)]!.toFixed(0)}); req/s ${rs.map((r) => r.rps.toFixed(0)).join(', ')}`,
    );
  }
}

main()
  .catch((e: unknown) => {
    console.error(e);
    process.exitCode = 1;
  })
  .finally(() => {
    for (const c of children) c.kill('SIGTERM');
    setTimeout(() => process.exit(), 1000).unref();
  });
