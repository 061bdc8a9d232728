// What the gateway and tracing cost, in one run, with autocannon. Every process runs as production
// starts it: its esbuild bundle, NODE_ENV=production, log level info, telemetry on (every request
// sampled unless BENCH_SAMPLE_RATIO says otherwise) exporting OTLP/HTTP protobuf to a local sink.
// The same processes with OTEL_SDK_DISABLED=true give the "telemetry off" figures beside them.
//
//   trivial upstream: a JSON hello-world (json-upstream.ts) behind GET /v1/orders/{id}
//     direct | through the gateway (telemetry on) | through the gateway (telemetry off)
//     | through the floor forwarder (floor-forwarder.ts: the Redis round trip and the forwarding
//       alone, the least any gateway on this path does; a reference, not a target)
//   DB-backed GET: the real customers service, GET /v1/customers/{cust_id} (reach check + read)
//     direct, telemetry on | direct, telemetry off | through the gateway, both on
//
// Then the on/off pairs again at one offered rate (open loop at half the telemetry-on throughput),
// where both handle as many requests per wake-up: that difference is printed beside the full-load
// one (the target's figure). On this machine it came out larger, not smaller (README).
//
// Runs alternate (ROUNDS rounds of every run) and the medians are printed. CPU per request is read
// from /proc for each process under load: it does not depend on what else shares the machine, unlike
// req/s. The gateway's token is verified against a JWKS, revocation and rate limit run in Redis on
// every request (the limit is raised so that none is refused), the identity is signed, the request
// forwarded over a keep-alive pool and an access line written.
//
//   pnpm --filter @ordering/gateway bench      (or: tsx gateway/bench/gateway-overhead.ts)
//   BENCH_SECONDS=8 BENCH_CONNECTIONS=50 ROUNDS=2 BENCH_SAMPLE_RATIO=1 GATEWAY_NODE_ARGS=--cpu-prof
//   SERVICE_NODE_ARGS=--cpu-prof (the customers service's processes)
//   BENCH_ONLY='trivial: gateway' (only the runs whose name matches; no verdicts: for profiling)
//   BENCH_PORTS=18400-18499 (every listener in that range; default: any free port)
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import autocannon from 'autocannon';
import jwt from 'jsonwebtoken';
import { signIdentity } from '@ordering/http';
import { openLoopLoad, processCpuMs } from '@ordering/testing';
import { freePort, listenOnFreePort } from './bench-ports';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 50);
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const SAMPLE_RATIO = process.env.BENCH_SAMPLE_RATIO ?? '1';
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const PG_BASE_URL = process.env.DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432';
const DB_NAME = `${process.env.DATABASE_NAME_PREFIX ?? ''}bench_customers`;
const IDENTITY_SECRET = 'bench-identity-secret-of-at-least-32-characters';
const CUST_ID = 'BENCH';
const gatewayDir = path.resolve(__dirname, '..');
const repoRoot = path.resolve(gatewayDir, '..');
const customersDir = path.join(repoRoot, 'services', 'customers');
const children: ChildProcess[] = [];

interface Proc {
  child: ChildProcess;
  url: string;
}

/** Starts a process listening on `port` and resolves once `probePath` answers below 500. */
async function startProcess(
  args: string[],
  env: NodeJS.ProcessEnv,
  port: number,
  probePath: string,
  cwd = gatewayDir,
): Promise<Proc> {
  // stdout (access logs) is drained to nowhere, as a log shipper would read it.
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(child);
  const url = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${args.join(' ')} exited with ${child.exitCode}`);
    const ok = await fetch(`${url}${probePath}`).then(
      (r) => r.status < 500,
      () => false,
    );
    if (ok) return { child, url };
    if (Date.now() > deadline) throw new Error(`${args.join(' ')} did not answer on ${url}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Where the processes export their spans: an OTLP/HTTP receiver that reads and drops them. */
async function startOtlpSink() {
  let spansBytes = 0;
  let exports = 0;
  const server = http.createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (spansBytes += chunk.length));
    req.on('end', () => {
      exports++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  const url = `http://127.0.0.1:${await listenOnFreePort(server)}`;
  return { server, url, stats: () => ({ exports, spansBytes }) };
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
  const issuer = `http://127.0.0.1:${await listenOnFreePort(server)}`;
  const audience = 'https://api.bench.test';
  const token = jwt.sign(
    { scope: 'orders:read', client_id: 'bench', cust_id: CUST_ID, login: 'alice' },
    privateKey,
    {
      algorithm: 'RS256',
      keyid: kid,
      // RFC 9068: the gateway takes only JWTs typed as access tokens.
      header: { alg: 'RS256', typ: 'at+jwt' },
      issuer,
      audience,
      subject: `shopper:${CUST_ID.toLowerCase()}:alice`,
      expiresIn: 3600,
      jwtid: randomUUID(),
    },
  );
  return { server, issuer, audience, token };
}

interface Figures {
  rps: number;
  p50: number;
  p99: number;
  bad: number;
  /** CPU µs per request of each measured process, by name. */
  cpu: Record<string, number>;
}

async function measure(
  url: string,
  headers: Record<string, string>,
  seconds: number,
  processes: Record<string, Proc> = {},
): Promise<Figures> {
  const before = Object.fromEntries(
    Object.entries(processes).map(([n, p]) => [n, processCpuMs(p.child.pid!)]),
  );
  const result = await autocannon({ url, connections: CONNECTIONS, duration: seconds, headers });
  const requests = Math.max(1, result.requests.total);
  const cpu = Object.fromEntries(
    Object.entries(processes).map(([n, p]) => [
      n,
      ((processCpuMs(p.child.pid!) - before[n]!) * 1000) / requests,
    ]),
  );
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    bad: result.errors + result.timeouts + result.non2xx,
    cpu,
  };
}

/**
 * CPU per request of each process at one offered rate (open loop): processes compared at the same
 * rate do the same work per wake-up, so their difference is what one of them adds per request.
 * (At full load a slower process also handles fewer requests per wake-up, which costs CPU too.)
 */
async function measureAtRate(
  url: string,
  headers: Record<string, string>,
  rate: number,
  seconds: number,
  processes: Record<string, Proc>,
): Promise<Record<string, number>> {
  const before = Object.fromEntries(
    Object.entries(processes).map(([n, p]) => [n, processCpuMs(p.child.pid!)]),
  );
  const result = await openLoopLoad(() => ({ method: 'GET', url, headers }), { rate, seconds });
  if (result.errors + result.non2xx > 0) {
    throw new Error(`${url} answered ${result.errors + result.non2xx} errors or non-2xx at ${rate} req/s`);
  }
  const requests = Math.max(1, result.rps * seconds);
  return Object.fromEntries(
    Object.entries(processes).map(([n, p]) => [
      n,
      ((processCpuMs(p.child.pid!) - before[n]!) * 1000) / requests,
    ]),
  );
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

function telemetryEnv(name: string, sinkUrl: string, on: boolean): NodeJS.ProcessEnv {
  const { OTEL_SDK_DISABLED: _off, OTEL_TRACES_EXPORTER: _exp, ...rest } = process.env;
  return {
    ...rest,
    NODE_ENV: 'production',
    LOG_LEVEL: 'info',
    OTEL_SERVICE_NAME: name,
    ...(on
      ? {
          OTEL_EXPORTER_OTLP_ENDPOINT: sinkUrl,
          OTEL_EXPORTER_OTLP_PROTOCOL: 'http/protobuf',
          OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
          OTEL_TRACES_SAMPLER_ARG: SAMPLE_RATIO,
        }
      : { OTEL_SDK_DISABLED: 'true' }),
  };
}

async function main(): Promise<void> {
  const bundler = path.join(repoRoot, 'deploy', 'build', 'bundle.mjs');
  execFileSync(process.execPath, [bundler, gatewayDir], { stdio: 'inherit' });
  execFileSync(process.execPath, [bundler, customersDir], { stdio: 'inherit' });
  const sink = await startOtlpSink();
  const jwks = await startJwks();
  const nodeArgs = process.env.GATEWAY_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const serviceNodeArgs = process.env.SERVICE_NODE_ARGS?.split(' ').filter(Boolean) ?? [];
  const register = (dir: string, on: boolean) =>
    on ? ['--require', path.join(dir, 'dist/register-telemetry.js')] : [];

  const upstreamPort = await freePort();
  const upstream = await startProcess(
    ['--import', 'tsx', path.join(__dirname, 'json-upstream.ts')],
    { ...process.env, NODE_ENV: 'production', PORT: String(upstreamPort) },
    upstreamPort,
    '/v1/orders/ord_123',
  );

  const floorPort = await freePort();
  const floor = await startProcess(
    ['--import', 'tsx', path.join(__dirname, 'floor-forwarder.ts')],
    {
      ...process.env,
      NODE_ENV: 'production',
      PORT: String(floorPort),
      ORDERS_URL: upstream.url,
      REDIS_URL,
      REDIS_KEY_PREFIX: `bench:${randomUUID()}:`,
    },
    floorPort,
    '/healthz',
  );

  const customers = async (on: boolean): Promise<Proc> => {
    const port = await freePort();
    return startProcess(
      [...serviceNodeArgs, ...register(customersDir, on), path.join(customersDir, 'dist/start.js')],
      {
        ...telemetryEnv('customers', sink.url, on),
        PORT: String(port),
        HOST: '127.0.0.1',
        DATABASE_URL: `${PG_BASE_URL}/${DB_NAME}`,
        DATABASE_POOL_MAX: '10',
        // No broker: this GET publishes nothing; the relay is off and readiness says degraded.
        KAFKA_BROKERS: '127.0.0.1:1',
        OUTBOX_RELAY_ENABLED: 'false',
        INTERNAL_IDENTITY_SECRET: IDENTITY_SECRET,
        PASSWORD_HASH_COST: '10',
      },
      port,
      '/healthz',
      customersDir,
    );
  };
  const customersOn = await customers(true);
  const customersOff = await customers(false);

  const gateway = async (on: boolean): Promise<Proc> => {
    const port = await freePort();
    return startProcess(
      [...nodeArgs, ...register(gatewayDir, on), path.join(gatewayDir, 'dist/start.js')],
      {
        ...telemetryEnv('gateway', sink.url, on),
        PORT: String(port),
        HOST: '127.0.0.1',
        AUTH_JWKS_URL: `${jwks.issuer}/oauth/jwks.json`,
        AUTH_ISSUER: jwks.issuer,
        API_AUDIENCE: jwks.audience,
        INTERNAL_IDENTITY_SECRET: IDENTITY_SECRET,
        REDIS_URL,
        REDIS_KEY_PREFIX: `bench:${randomUUID()}:`,
        RATE_LIMIT_CAPACITY: '1000000000',
        RATE_LIMIT_REFILL_PER_SECOND: '1000000000',
        ORDERS_URL: upstream.url,
        CUSTOMERS_URL: on ? customersOn.url : customersOff.url,
      },
      port,
      '/healthz',
    );
  };
  const gatewayOn = await gateway(true);
  const gatewayOff = await gateway(false);

  // The account the DB-backed GET reads (created once; a rerun finds it).
  const operator = signIdentity(
    {
      sub: 'service:bench',
      cust_id: '*',
      login: 'bench',
      client_id: 'service:bench',
      scopes: ['internal'],
      jti: randomUUID(),
      exp: Math.floor(Date.now() / 1000) + 600,
    },
    IDENTITY_SECRET,
  );
  const created = await fetch(`${customersOn.url}/internal/v1/admin/customers`, {
    method: 'POST',
    headers: { 'x-ordering-identity': operator, 'content-type': 'application/json' },
    body: JSON.stringify({
      cust_id: CUST_ID,
      name: 'Bench Corp',
      parent_cust_id: null,
      currency: 'USD',
      approval_required_over: null,
      billing_terms: 'net_30',
      email_domains: [],
      jit_provisioning: false,
    }),
  });
  if (created.status !== 201 && created.status !== 409) {
    throw new Error(`creating the bench account: ${created.status} ${await created.text()}`);
  }
  // What the gateway would send for the bench token: the direct runs pay the same verification.
  const identity = signIdentity(
    {
      sub: `shopper:${CUST_ID.toLowerCase()}:alice`,
      cust_id: CUST_ID,
      login: 'alice',
      client_id: 'bench',
      scopes: ['orders:read'],
      jti: randomBytes(8).toString('hex'),
      exp: Math.floor(Date.now() / 1000) + 3600,
    },
    IDENTITY_SECRET,
  );
  const bearer = { authorization: `Bearer ${jwks.token}`, accept: 'application/json' };
  const direct = { 'x-ordering-identity': identity, accept: 'application/json' };
  const orderPath = '/v1/orders/ord_123';
  const customerPath = `/v1/customers/${CUST_ID}`;

  const runs: { name: string; run: () => Promise<Figures> }[] = [
    {
      name: 'trivial: direct',
      run: () => measure(`${upstream.url}${orderPath}`, bearer, SECONDS, { upstream }),
    },
    {
      name: 'trivial: gateway, telemetry on',
      run: () => measure(`${gatewayOn.url}${orderPath}`, bearer, SECONDS, { gateway: gatewayOn }),
    },
    {
      name: 'trivial: gateway, telemetry off',
      run: () => measure(`${gatewayOff.url}${orderPath}`, bearer, SECONDS, { gateway: gatewayOff }),
    },
    {
      name: 'trivial: floor forwarder',
      run: () => measure(`${floor.url}${orderPath}`, bearer, SECONDS, { forwarder: floor }),
    },
    {
      name: 'DB GET: direct, telemetry on',
      run: () => measure(`${customersOn.url}${customerPath}`, direct, SECONDS, { service: customersOn }),
    },
    {
      name: 'DB GET: direct, telemetry off',
      run: () => measure(`${customersOff.url}${customerPath}`, direct, SECONDS, { service: customersOff }),
    },
    {
      name: 'DB GET: gateway, telemetry on',
      run: () =>
        measure(`${gatewayOn.url}${customerPath}`, bearer, SECONDS, {
          gateway: gatewayOn,
          service: customersOn,
        }),
    },
  ];

  const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : undefined;
  if (only) runs.splice(0, runs.length, ...runs.filter((r) => only.test(r.name)));
  try {
    console.log(
      `warming up (2 s each), then ${ROUNDS} alternating rounds of ${SECONDS} s per run, ${CONNECTIONS} connections, ` +
        `sampling ratio ${SAMPLE_RATIO}`,
    );
    for (const [url, headers] of [
      [`${upstream.url}${orderPath}`, bearer],
      [`${gatewayOn.url}${orderPath}`, bearer],
      [`${gatewayOff.url}${orderPath}`, bearer],
      [`${floor.url}${orderPath}`, bearer],
      [`${customersOn.url}${customerPath}`, direct],
      [`${customersOff.url}${customerPath}`, direct],
      [`${gatewayOn.url}${customerPath}`, bearer],
    ] as const) {
      const warm = await measure(url, headers, 2);
      if (warm.bad > 0) throw new Error(`${url} answered ${warm.bad} errors or non-2xx while warming up`);
    }
    const results = new Map<string, Figures[]>(runs.map((r) => [r.name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const { name, run } of runs) results.get(name)!.push(await run());
    }

    const med = (name: string, pick: (f: Figures) => number) => median(results.get(name)!.map(pick));
    const cpuOf = (name: string, proc: string) => med(name, (f) => f.cpu[proc] ?? 0);
    console.log(
      `\n${'run'.padEnd(34)} ${'req/s'.padStart(7)} ${'p50 ms'.padStart(7)} ${'p99 ms'.padStart(7)}  CPU µs/request`,
    );
    for (const { name } of runs) {
      const cpu = Object.keys(results.get(name)![0]!.cpu)
        .map((p) => `${p} ${cpuOf(name, p).toFixed(0)}`)
        .join(', ');
      const bad = results.get(name)!.reduce((n, f) => n + f.bad, 0);
      console.log(
        `${name.padEnd(34)} ${med(name, (f) => f.rps)
          .toFixed(0)
          .padStart(7)} ${String(med(name, (f) => f.p50)).padStart(7)} ` +
          `${String(med(name, (f) => f.p99)).padStart(7)}  ${cpu}${bad ? `   (${bad} errors/non-2xx)` : ''}`,
      );
    }
    if (only) return;
    const rps = (name: string) => med(name, (f) => f.rps);
    const gwOn = cpuOf('trivial: gateway, telemetry on', 'gateway');
    const gwOff = cpuOf('trivial: gateway, telemetry off', 'gateway');
    const svcOn = cpuOf('DB GET: direct, telemetry on', 'service');
    const svcOff = cpuOf('DB GET: direct, telemetry off', 'service');
    const verdict = (ok: boolean) => (ok ? 'ok' : 'MISSED');
    // The same pairs at one offered rate, half of what the slower of each pair reached.
    const gatewayRate = Math.round(rps('trivial: gateway, telemetry on') / 2);
    const serviceRate = Math.round(rps('DB GET: direct, telemetry on') / 2);
    const atRate = {
      gwOn: [] as number[],
      gwOff: [] as number[],
      svcOn: [] as number[],
      svcOff: [] as number[],
    };
    for (let round = 0; round < ROUNDS; round++) {
      const at = (url: string, headers: Record<string, string>, rate: number, proc: Proc) =>
        measureAtRate(url, headers, rate, SECONDS, { p: proc }).then((cpu) => cpu.p!);
      atRate.gwOn.push(await at(`${gatewayOn.url}${orderPath}`, bearer, gatewayRate, gatewayOn));
      atRate.gwOff.push(await at(`${gatewayOff.url}${orderPath}`, bearer, gatewayRate, gatewayOff));
      atRate.svcOn.push(await at(`${customersOn.url}${customerPath}`, direct, serviceRate, customersOn));
      atRate.svcOff.push(await at(`${customersOff.url}${customerPath}`, direct, serviceRate, customersOff));
    }
    const [gwOnAt, gwOffAt, svcOnAt, svcOffAt] = [atRate.gwOn, atRate.gwOff, atRate.svcOn, atRate.svcOff].map(
      median,
    ) as [number, number, number, number];
    console.log(
      `\nat one offered rate (open loop, ${ROUNDS} alternating rounds of ${SECONDS} s), CPU µs/request:`,
    );
    console.log(
      `  trivial through the gateway at ${gatewayRate} req/s: gateway ${gwOnAt.toFixed(0)} telemetry on, ${gwOffAt.toFixed(0)} off`,
    );
    console.log(
      `  DB GET direct at ${serviceRate} req/s: service ${svcOnAt.toFixed(0)} telemetry on, ${svcOffAt.toFixed(0)} off ` +
        `(${(((svcOnAt - svcOffAt) / svcOffAt) * 100).toFixed(0)} % more)`,
    );
    const trivialRatio = rps('trivial: gateway, telemetry on') / rps('trivial: direct');
    const dbRatio = rps('DB GET: gateway, telemetry on') / rps('DB GET: direct, telemetry on');
    const serviceCost = 1 - rps('DB GET: direct, telemetry on') / rps('DB GET: direct, telemetry off');
    console.log('\ntargets (issue 11), medians of this run:');
    console.log(
      `  tracing CPU per request at the gateway: ${(gwOn - gwOff).toFixed(0)} µs (${gwOn.toFixed(0)} on, ${gwOff.toFixed(0)} off; target <= 40)  ${verdict(gwOn - gwOff <= 40)}; ` +
        `at one offered rate: ${(gwOnAt - gwOffAt).toFixed(0)} µs`,
    );
    console.log(
      `  tracing cost on the DB-backed GET: ${(serviceCost * 100).toFixed(1)} % of throughput, ` +
        `${(svcOn - svcOff).toFixed(0)} µs CPU per request (${svcOn.toFixed(0)} on, ${svcOff.toFixed(0)} off; target <= 15 %)  ${verdict(serviceCost <= 0.15)}`,
    );
    console.log(
      `  gateway / direct, trivial upstream, telemetry on: ${trivialRatio.toFixed(2)}x (target >= 0.25)  ${verdict(trivialRatio >= 0.25)}`,
    );
    console.log(
      `  gateway / direct, DB-backed GET, telemetry on: ${dbRatio.toFixed(2)}x (target >= 0.8)  ${verdict(dbRatio >= 0.8)}`,
    );
    const floorRatio = rps('trivial: floor forwarder') / rps('trivial: direct');
    const floorCpu = cpuOf('trivial: floor forwarder', 'forwarder');
    console.log(
      `  reference: the floor forwarder / direct, trivial upstream: ${floorRatio.toFixed(2)}x at ${floorCpu.toFixed(0)} µs ` +
        `per request; the gateway costs ${(gwOff / floorCpu).toFixed(1)}x that with telemetry off, ${(gwOn / floorCpu).toFixed(1)}x on`,
    );
    const { exports, spansBytes } = sink.stats();
    console.log(
      `  spans exported to the local OTLP sink: ${exports} requests, ${(spansBytes / 1e6).toFixed(1)} MB`,
    );
  } finally {
    // The processes flush their last spans on the way out: the sink closes after them.
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
          }),
      ),
    );
    jwks.server.close();
    sink.server.close();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  for (const child of children) child.kill('SIGTERM');
  process.exitCode = 1;
});
