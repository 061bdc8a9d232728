// Benchmark of the token endpoint, client credentials grant: tokens per second and latency
// percentiles at a fixed concurrency. The service runs as its own process (the bundle in dist/ when
// built, else the TypeScript entry through tsx) on a fresh database; the load generator
// (autocannon) runs here. Prints figures; it is not a timed test.
//
//   pnpm --filter @ordering/auth-service bench   [CONCURRENCY=20 DURATION=15]
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import path from 'node:path';
import autocannon from 'autocannon';
import { createKnex, ensureDatabase, withDatabase } from '@ordering/db';
import { ClientRepository } from '../src/data-access/client-repository';
import { registerClient } from '../src/domain/client-registration-use-case';
import { freePort } from '@ordering/testing';

const CONCURRENCY = Number(process.env.CONCURRENCY ?? 20);
const DURATION = Number(process.env.DURATION ?? 15);
const PG = process.env.DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const serviceDir = path.resolve(__dirname, '..');

async function waitReady(url: string, child: ChildProcess): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`auth service exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/readyz`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('auth service did not become ready');
}

async function main(): Promise<void> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const database = `auth_bench_${randomBytes(4).toString('hex')}`;
  const dbUrl = withDatabase(PG, database);
  const secretKey = randomBytes(32).toString('hex');
  await ensureDatabase(dbUrl);

  const bundled = path.join(serviceDir, 'dist', 'start.js');
  const [command, args] = existsSync(bundled)
    ? [process.execPath, [bundled]]
    : [
        path.resolve(serviceDir, '..', '..', 'node_modules', '.bin', 'tsx'),
        [path.join(serviceDir, 'src', 'start.ts')],
      ];
  const child = spawn(command, args, {
    cwd: serviceDir,
    stdio: ['ignore', 'ignore', 'inherit'],
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      DATABASE_URL: dbUrl,
      KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:29092',
      KAFKA_CONSUMER_GROUP: `auth-bench-${randomBytes(4).toString('hex')}`,
      KAFKA_FROM_BEGINNING: 'false',
      REDIS_KEY_PREFIX: `bench:${randomBytes(4).toString('hex')}:`,
      INTERNAL_IDENTITY_SECRET: randomBytes(32).toString('hex'),
      AUTH_ISSUER: url,
      CLIENT_SECRET_KEY: secretKey,
      KEY_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
      COOKIE_KEYS: randomBytes(32).toString('hex'),
      // The bench measures what one client can be issued at full speed (signing, storage): its
      // token endpoint limit (10 tokens, then one every 6 minutes) would refuse all but the first.
      TOKEN_LIMIT_CLIENT_BURST: String(1_000_000_000),
      // Refilled fast, so that its bucket's key (kept until the bucket would be full) is gone soon.
      TOKEN_LIMIT_CLIENT_REFILL_SECONDS: '1',
    },
  });
  const knex = createKnex({ url: dbUrl, service: 'auth-bench', pool: { max: 1 } });
  try {
    await waitReady(url, child);
    const { client, clientSecret } = await registerClient(
      { clients: new ClientRepository(knex), secretKey, now: () => new Date() },
      {
        name: 'bench',
        type: 'service',
        scopes: ['orders:read', 'catalog:read'],
        custId: 'ACME',
        login: 'bench',
      },
    );
    const request = {
      method: 'POST' as const,
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${client.clientId}:${clientSecret}`).toString('base64')}`,
      },
      body: 'grant_type=client_credentials&scope=orders%3Aread%20catalog%3Aread',
    };
    const sample = await fetch(`${url}/oauth/token`, request);
    if (sample.status !== 200)
      throw new Error(`token endpoint answered ${sample.status}: ${await sample.text()}`);

    // Warm-up (JIT, pools), then the measured run.
    await autocannon({ url: `${url}/oauth/token`, connections: CONCURRENCY, duration: 3, ...request });
    const result = await autocannon({
      url: `${url}/oauth/token`,
      connections: CONCURRENCY,
      duration: DURATION,
      ...request,
    });
    const ok = result['2xx'];
    const perSecond = ok / (result.duration || DURATION);
    console.log(
      [
        `token endpoint, client_credentials (RS256 JWT), concurrency ${CONCURRENCY}, ${DURATION} s, ${process.execPath.includes('node') ? `node ${process.version}` : ''}`,
        `  tokens/s   ${perSecond.toFixed(0)}   (${ok} tokens; non-2xx ${result.non2xx}, errors ${result.errors}, timeouts ${result.timeouts})`,
        `  latency    p50 ${result.latency.p50} ms   p90 ${result.latency.p90} ms   p99 ${result.latency.p99} ms   max ${result.latency.max} ms`,
        `  target     > 480 tokens/s on 2 cores (Hydra 411/s on 2 vCPU; Keycloak ~120/s per vCPU)`,
      ].join('\n'),
    );
  } finally {
    child.kill('SIGTERM');
    await new Promise((r) => child.once('exit', r));
    await knex.destroy();
    const admin = createKnex({ url: PG, service: 'auth-bench', pool: { max: 1 } });
    await admin.raw(`drop database if exists "${database}" with (force)`);
    await admin.destroy();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
