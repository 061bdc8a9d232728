// What the gateway costs: the same authenticated GET, once through the gateway and once straight
// to the service, in one run, with autocannon. The gateway runs as its production bundle in its own
// process (token verified against a JWKS, revocation check and rate-limit script in Redis, identity
// signed, forwarded over a keep-alive pool, access log written); the service is an Express 5
// process. The rate limit is raised so that every request still runs the Redis script but none is
// refused.
//
//   pnpm --filter @ordering/gateway bench      (or: tsx gateway/bench/gateway-overhead.ts)
//   BENCH_SECONDS=10 BENCH_CONNECTIONS=50 GATEWAY_LOG_LEVEL=info GATEWAY_NODE_ARGS=--cpu-prof
import { execFileSync, spawn } from 'node:child_process';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import autocannon from 'autocannon';
import jwt from 'jsonwebtoken';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const gatewayDir = path.resolve(__dirname, '..');

/** A port free right now (bound, then released). */
async function freePort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Starts a process listening on `port` and resolves once `/healthz`-style `probePath` answers. */
async function startProcess(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  port: number,
  probePath: string,
) {
  // stdout (access logs) is drained to nowhere, as a log shipper would read it.
  const child = spawn(command, args, { cwd: gatewayDir, env, stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 15_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}`);
    const ok = await fetch(`${url}${probePath}`).then(
      (r) => r.status < 500,
      () => false,
    );
    if (ok) return { child, url };
    if (Date.now() > deadline) throw new Error(`${args.join(' ')} did not answer on ${url}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function startJwks() {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = randomUUID();
  const jwks = JSON.stringify({
    keys: [{ ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' }],
  });
  const server = http.createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'application/json' }).end(jwks),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const audience = 'https://api.bench.test';
  const token = jwt.sign(
    { scope: 'orders:read', client_id: 'bench', cust_id: 'ACME', login: 'alice' },
    privateKey,
    {
      algorithm: 'RS256',
      keyid: kid,
      issuer,
      audience,
      subject: 'shopper:acme:alice',
      expiresIn: 3600,
      jwtid: randomUUID(),
    },
  );
  return { server, issuer, audience, token };
}

/** CPU time a process has used so far, in ms (user, system), from /proc (Linux; zeros elsewhere). */
function cpuMs(pid: number | undefined): { user: number; system: number } {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    // utime and stime are fields 14 and 15 of stat, in clock ticks (100 per second on Linux).
    return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
  } catch {
    return { user: 0, system: 0 };
  }
}

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  errors: number;
  non2xx: number;
  requests: number;
}

async function measure(url: string, token: string, seconds: number): Promise<Figures> {
  const result = await autocannon({
    url: `${url}/v1/orders/ord_123`,
    connections: CONNECTIONS,
    duration: seconds,
    headers: { authorization: `Bearer ${token}`, accept: 'application/json' },
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.timeouts,
    non2xx: result.non2xx,
    requests: result.requests.total,
  };
}

async function main(): Promise<void> {
  execFileSync(process.execPath, [path.resolve(gatewayDir, '../deploy/build/bundle.mjs'), gatewayDir], {
    stdio: 'inherit',
  });
  const jwks = await startJwks();
  const upstreamPort = await freePort();
  const gatewayPort = await freePort();
  const upstream = await startProcess(
    process.execPath,
    ['--import', 'tsx', path.join(__dirname, 'json-upstream.ts')],
    { ...process.env, NODE_ENV: 'production', PORT: String(upstreamPort) },
    upstreamPort,
    '/v1/orders/ord_123',
  );
  const gateway = await startProcess(
    process.execPath,
    [
      ...(process.env.GATEWAY_NODE_ARGS?.split(' ').filter(Boolean) ?? []),
      path.join(gatewayDir, 'dist/start.js'),
    ],
    {
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(gatewayPort),
      HOST: '127.0.0.1',
      LOG_LEVEL: process.env.GATEWAY_LOG_LEVEL ?? 'info',
      AUTH_JWKS_URL: `${jwks.issuer}/oauth/jwks.json`,
      AUTH_ISSUER: jwks.issuer,
      API_AUDIENCE: jwks.audience,
      INTERNAL_IDENTITY_SECRET: 'bench-identity-secret-of-at-least-32-characters',
      REDIS_URL,
      REDIS_KEY_PREFIX: `bench:${randomUUID()}:`,
      RATE_LIMIT_CAPACITY: '1000000000',
      RATE_LIMIT_REFILL_PER_SECOND: '1000000000',
      ORDERS_URL: upstream.url,
    },
    gatewayPort,
    '/healthz',
  );
  try {
    console.log(`warming up (2 s each), then ${SECONDS} s each with ${CONNECTIONS} connections`);
    await measure(upstream.url, jwks.token, 2);
    await measure(gateway.url, jwks.token, 2);
    const upstreamCpu0 = cpuMs(upstream.child.pid);
    const direct = await measure(upstream.url, jwks.token, SECONDS);
    const upstreamCpu1 = cpuMs(upstream.child.pid);
    const gatewayCpu0 = cpuMs(gateway.child.pid);
    const through = await measure(gateway.url, jwks.token, SECONDS);
    const gatewayCpu1 = cpuMs(gateway.child.pid);

    const row = (name: string, f: Figures) =>
      `${name.padEnd(16)} ${f.rps.toFixed(0).padStart(8)} ${String(f.p50).padStart(7)} ${String(f.p99).padStart(7)}` +
      `   ${f.errors} errors, ${f.non2xx} non-2xx`;
    console.log(
      `\n${'target'.padEnd(16)} ${'req/s'.padStart(8)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)}`,
    );
    console.log(row('direct', direct));
    console.log(row('through gateway', through));
    console.log(
      `\ngateway / direct: throughput ${(through.rps / direct.rps).toFixed(2)}x, ` +
        `p50 +${through.p50 - direct.p50} ms, p99 +${through.p99 - direct.p99} ms`,
    );
    // CPU per request does not depend on what else runs on the machine, unlike req/s.
    const perRequest = (before: { user: number; system: number }, after: typeof before, f: Figures) => {
      const us = (ms: number) => ((ms * 1000) / Math.max(1, f.requests)).toFixed(0);
      const user = after.user - before.user;
      const system = after.system - before.system;
      return `${us(user + system)} us (user ${us(user)}, system ${us(system)})`;
    };
    console.log(
      `CPU per request, service alone (direct run):  ${perRequest(upstreamCpu0, upstreamCpu1, direct)}`,
    );
    console.log(
      `CPU per request, gateway (its own work):      ${perRequest(gatewayCpu0, gatewayCpu1, through)}`,
    );
  } finally {
    gateway.child.kill('SIGTERM');
    upstream.child.kill('SIGTERM');
    jwks.server.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
