// The runtime image's file set, without Docker: what the Dockerfile's build stage does (bundle,
// then deploy/docker/assemble-runtime.mjs: the bundle plus its production dependencies at exactly
// the lockfile's versions, with the workspace's patches) into a directory outside the workspace, then what the runtime stage
// runs there: `node --enable-source-maps --require ./register-telemetry.js start.js`. The customers
// service (real PostgreSQL and Kafka) and the gateway in front of it (real Redis, a real RS256
// issuer) serve a request end to end and stop with exit code 0 on SIGTERM. A missing dependency
// or a file that only the workspace provides fails here.
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { Kafka, logLevel } from 'kafkajs';
import { parse } from 'yaml';
import pg from 'pg';
import { withDatabase } from '@ordering/db';
import { PG_ADMIN_URL, REDIS_URL, startTestIssuer, type TestIssuer } from '@ordering/testing';
import { bundleCopy } from './support/bundle-package';

const run = promisify(execFile);
const repoRoot = path.resolve(__dirname, '..', '..');
/** The runtime stage's command, as the Dockerfile says (its last CMD, exec form). */
const RUNTIME_COMMAND = JSON.parse(
  [
    ...fs
      .readFileSync(path.join(repoRoot, 'deploy/docker/Dockerfile'), 'utf8')
      .matchAll(/^CMD (\[.*\])\s*$/gm),
  ].pop()![1]!,
) as string[];
const SECRET = randomBytes(24).toString('hex');
const suffix = randomBytes(4).toString('hex');
const database = `test_container_customers_${suffix}`;

jest.setTimeout(180_000);

/** Bundles a package and assembles its image file set in a fresh directory outside the workspace. */
async function assemble(packageDir: string): Promise<string> {
  const bundled = await bundleCopy(packageDir);
  const out = fs.mkdtempSync(path.join(os.tmpdir(), `ordering-image-${path.basename(packageDir)}-`));
  try {
    await run(process.execPath, [path.join(repoRoot, 'deploy/docker/assemble-runtime.mjs'), bundled, out], {
      cwd: repoRoot,
      env: process.env,
    });
  } finally {
    fs.rmSync(path.dirname(bundled), { recursive: true, force: true });
  }
  return out;
}

interface Running {
  child: ChildProcess;
  url: string;
  output(): string;
}

/** Starts the runtime command in `dir` with only `env` (no workspace, no inherited NODE_PATH). */
async function start(dir: string, env: Record<string, string>): Promise<Running> {
  const [command, ...args] = RUNTIME_COMMAND;
  expect(command).toBe('node');
  const child = spawn(process.execPath, args, {
    cwd: dir,
    env: { PATH: process.env.PATH ?? '', NODE_ENV: 'production', HOST: '127.0.0.1', PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (c: Buffer) => (output += c.toString()));
  child.stderr!.on('data', (c: Buffer) => (output += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`not listening within 30 s:\n${output}`)), 30_000);
    const onData = () => {
      const match = /"url":"(http:\/\/[^"]+)"/.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve(match[1]!);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`exited ${code}:\n${output}`));
    });
  });
  return { child, url, output: () => output };
}

async function stop(running: Running): Promise<number | null> {
  if (running.child.exitCode !== null) return running.child.exitCode;
  const exited = once(running.child, 'exit');
  running.child.kill('SIGTERM');
  const [code] = (await exited) as [number | null];
  return code;
}

describe('the runtime image file set of customers and the gateway', () => {
  let customersDir = '';
  let gatewayDir = '';
  let issuer: TestIssuer;
  const started: Running[] = [];

  beforeAll(async () => {
    [customersDir, gatewayDir, issuer] = await Promise.all([
      assemble('services/customers'),
      assemble('gateway'),
      startTestIssuer('https://api.ordering.test'),
    ]);
  });

  afterAll(async () => {
    for (const r of started) if (r.child.exitCode === null) r.child.kill('SIGKILL');
    await issuer?.close();
    for (const dir of [customersDir, gatewayDir]) if (dir) fs.rmSync(dir, { recursive: true, force: true });
    const client = new pg.Client({ connectionString: PG_ADMIN_URL });
    await client.connect();
    await client.query(`drop database if exists "${database}" with (force)`);
    await client.end();
  });

  it.each([
    ['customers', () => customersDir],
    ['gateway', () => gatewayDir],
  ])(
    '%s: holds the bundle and production dependencies only, patched, resolvable without the workspace',
    (_name, dir) => {
      const files = fs.readdirSync(dir()).sort();
      expect(files).toEqual(
        expect.arrayContaining([
          'node_modules',
          'package.json',
          'register-telemetry.js',
          'start.js',
          'start.js.map',
        ]),
      );
      // Nothing of the workspace: no symlinks out of the directory, no dev tooling, no lockfile.
      const modules = path.join(dir(), 'node_modules');
      for (const entry of fs.readdirSync(modules)) {
        expect(fs.lstatSync(path.join(modules, entry)).isSymbolicLink()).toBe(false);
      }
      for (const devOnly of ['jest', 'typescript', 'esbuild', '@swc/core', 'eslint']) {
        expect(fs.existsSync(path.join(modules, devOnly))).toBe(false);
      }
      for (let d = path.dirname(dir()); d !== path.dirname(d); d = path.dirname(d)) {
        expect(fs.existsSync(path.join(d, 'node_modules'))).toBe(false);
      }
      const manifest = JSON.parse(fs.readFileSync(path.join(dir(), 'package.json'), 'utf8'));
      for (const [name, version] of Object.entries(manifest.dependencies as Record<string, string>)) {
        const installed = JSON.parse(fs.readFileSync(path.join(modules, name, 'package.json'), 'utf8'));
        expect(`${name}@${installed.version}`).toBe(`${name}@${version}`);
      }
    },
  );

  it.each([
    ['customers', () => customersDir],
    ['gateway', () => gatewayDir],
  ])(
    '%s: every installed package is at a version pnpm-lock.yaml pins, none resolved afresh',
    (_name, dir) => {
      const lock = parse(fs.readFileSync(path.join(repoRoot, 'pnpm-lock.yaml'), 'utf8')) as {
        packages: Record<string, unknown>;
      };
      const pinned = new Set(Object.keys(lock.packages));
      const installed: string[] = [];
      const walk = (modules: string) => {
        for (const entry of fs.readdirSync(modules)) {
          const names = entry.startsWith('@')
            ? fs.readdirSync(path.join(modules, entry)).map((n) => `${entry}/${n}`)
            : [entry];
          for (const name of names) {
            const manifest = path.join(modules, name, 'package.json');
            if (!fs.existsSync(manifest)) continue;
            installed.push(`${name}@${JSON.parse(fs.readFileSync(manifest, 'utf8')).version}`);
            const nested = path.join(modules, name, 'node_modules');
            if (fs.existsSync(nested)) walk(nested);
          }
        }
      };
      walk(path.join(dir(), 'node_modules'));
      expect(installed.length).toBeGreaterThan(20);
      expect(installed.filter((spec) => !pinned.has(spec))).toEqual([]);
    },
  );

  it('customers kafkajs carries the workspace patch', () => {
    const file = path.join(customersDir, 'node_modules/kafkajs/src/network/requestQueue/index.js');
    // patches/kafkajs@2.2.4.patch: no idle 1 ms check loop (and so never a negative delay).
    expect(fs.readFileSync(file, 'utf8')).toContain('} else if (scheduleAt <= 0) {');
  });

  it('the topic Job script creates the missing topics with the image dependencies; a second run creates none', async () => {
    // As the Job mounts it: the script alone in a directory, kafkajs from the image's /app.
    const scripts = fs.mkdtempSync(path.join(os.tmpdir(), 'ordering-scripts-'));
    fs.copyFileSync(
      path.join(repoRoot, 'deploy/helm/ordering/files/create-topics.js'),
      path.join(scripts, 'create-topics.js'),
    );
    const brokers = process.env.KAFKA_BROKERS ?? '127.0.0.1:29092';
    const topics = [`test.container-topics.${suffix}.a`, `test.container-topics.${suffix}.b`];
    const env = {
      PATH: process.env.PATH ?? '',
      APP_DIR: customersDir,
      KAFKA_BROKERS: brokers,
      KAFKA_TOPICS: topics.join(','),
      KAFKA_TOPIC_PARTITIONS: '2',
      KAFKA_TOPIC_REPLICATION_FACTOR: '1',
    };
    const job = () => run(process.execPath, [path.join(scripts, 'create-topics.js')], { cwd: scripts, env });
    const admin = new Kafka({
      clientId: 'container-test',
      brokers: brokers.split(','),
      logLevel: logLevel.NOTHING,
    }).admin();
    await admin.connect();
    try {
      const first = await job();
      expect(JSON.parse(first.stdout)).toMatchObject({ created: topics, existing: 0 });
      const metadata = await admin.fetchTopicMetadata({ topics });
      expect(metadata.topics.map((t) => [t.name, t.partitions.length]).sort()).toEqual(
        topics.map((t) => [t, 2]),
      );
      const second = await job();
      expect(JSON.parse(second.stdout)).toMatchObject({ created: [], existing: 2 });
    } finally {
      await admin.deleteTopics({ topics }).catch(() => undefined);
      await admin.disconnect();
      fs.rmSync(scripts, { recursive: true, force: true });
    }
  });

  it('customers and the gateway start from it, serve a request end to end, and exit 0 on SIGTERM', async () => {
    const customers = await start(customersDir, {
      DATABASE_URL: withDatabase(PG_ADMIN_URL, database),
      KAFKA_BROKERS: process.env.KAFKA_BROKERS ?? '127.0.0.1:29092',
      INTERNAL_IDENTITY_SECRET: SECRET,
      PASSWORD_HASH_COST: '10',
      LOG_LEVEL: 'info',
    });
    started.push(customers);
    const gateway = await start(gatewayDir, {
      AUTH_JWKS_URL: issuer.jwksUrl,
      AUTH_ISSUER: issuer.issuer,
      API_AUDIENCE: issuer.audience,
      INTERNAL_IDENTITY_SECRET: SECRET,
      REDIS_URL,
      REDIS_KEY_PREFIX: `test:container:${suffix}:`,
      CUSTOMERS_URL: customers.url,
      LOG_LEVEL: 'info',
    });
    started.push(gateway);

    expect((await fetch(`${customers.url}/readyz`)).status).toBe(200);
    expect((await fetch(`${gateway.url}/readyz`)).status).toBe(200);
    expect((await fetch(`${gateway.url}/healthz`)).status).toBe(200);
    // Through the gateway (token verified against the JWKS, identity signed) to customers and back.
    const token = issuer.mint({ cust_id: `C${suffix}`, login: 'container-test', scope: 'users:read' });
    const res = await fetch(`${gateway.url}/v1/users?limit=1`, {
      headers: { authorization: `Bearer ${token}` },
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ object: 'list', data: [] });
    expect((await fetch(`${gateway.url}/v1/users`)).status).toBe(401);

    expect(await stop(gateway)).toBe(0);
    expect(await stop(customers)).toBe(0);
    for (const r of [customers, gateway]) {
      expect(r.output()).not.toMatch(/Cannot find module|MODULE_NOT_FOUND|TimeoutNegativeWarning/);
      // Telemetry was loaded first: request logs carry trace ids from the http instrumentation.
      expect(r.output()).toMatch(/"trace_id":"[0-9a-f]{32}"/);
    }
  });
});
