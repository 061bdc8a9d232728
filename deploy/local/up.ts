// The README's start command (`./dev up`): the whole platform on this machine with demo data.
// Checks PostgreSQL and Redis, starts the project's Kafka broker, builds and starts every service
// that exists and the gateway (one process each, as in production), waits until each is ready,
// seeds the demo data, writes .local/stack.json and prints what to use. Ctrl-C or SIGTERM stops
// everything cleanly. The data of the previous run is kept unless `--fresh` (up-arguments.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ALL_TOPICS } from '@ordering/contracts';
import { dropDatabase, ensureDatabase } from '@ordering/db';
import { localStateDir, startKafkaBroker, stopKafkaBroker } from './kafka-broker';
import { assertLocalServers, tcpReachable } from './local-servers';
import {
  defaultSettings,
  portalUrl,
  ports,
  repoRoot,
  stackProcesses,
  type StackProcess,
} from './stack-definition';
import { seedDemoData } from '../ops/seed-demo-data';
import { UpUsageError, parseUpArguments, type UpArguments } from './up-arguments';
import { writeStackFile, stackFilePath, type StackFile } from './stack-file';
import { startZipkin, stopZipkin, waitForZipkin } from './zipkin-server';

const kafkaDir = localStateDir('kafka');
const zipkinDir = localStateDir('zipkin');
const lockFile = localStateDir('up.pid');
const bundler = path.join(repoRoot, 'deploy', 'build', 'bundle.mjs');
const logDir = localStateDir('logs');
const children: { proc: StackProcess; child: ChildProcess }[] = [];
let stopping = false;
let holdsLock = false;

function say(message: string): void {
  console.log(`[up] ${message}`);
}

function runToEnd(cmd: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd: repoRoot, stdio: ['ignore', 'ignore', 'inherit'] });
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}`)),
    );
    child.on('error', reject);
  });
}

function startProcess(proc: StackProcess): ChildProcess {
  const logFile = path.join(logDir, `${proc.name}.log`);
  const out = fs.openSync(logFile, 'a');
  const register = path.join(proc.dir, 'dist', 'register-telemetry.js');
  const args = ['--enable-source-maps'];
  if (fs.existsSync(register)) args.push('--require', register);
  args.push(path.join(proc.dir, 'dist', 'start.js'));
  const child = spawn(process.execPath, args, {
    cwd: proc.dir,
    env: { ...process.env, ...proc.env },
    stdio: ['ignore', out, out],
  });
  fs.closeSync(out);
  child.on('exit', (code, signal) => {
    if (!stopping) {
      say(`${proc.name} exited unexpectedly (${signal ?? `code ${code}`}); see ${logFile}`);
      void shutdown(1);
    }
  });
  return child;
}

async function waitReady(proc: StackProcess, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const url = `http://127.0.0.1:${proc.port}/readyz`;
  let last = '';
  while (Date.now() < deadline) {
    try {
      const res = await fetch(url, { signal: AbortSignal.timeout(2000) });
      if (res.ok) return;
      last = `${res.status} ${await res.text()}`;
    } catch (err) {
      last = err instanceof Error ? err.message : String(err);
    }
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(
    `${proc.name} was not ready at ${url} within ${timeoutMs / 1000} s (${last}); see ${logDir}`,
  );
}

/** One platform per checkout: a second `./dev up` would fight the first over ports and Kafka. */
function takeLock(): void {
  try {
    const pid = Number(fs.readFileSync(lockFile, 'utf8'));
    process.kill(pid, 0);
    throw new Error(
      `the platform is already up in this checkout (pid ${pid}, ${stackFilePath()}); ` +
        `stop it first (Ctrl-C in its terminal, or kill -TERM ${pid})`,
    );
  } catch (err) {
    if (err instanceof Error && err.message.startsWith('the platform is already up')) throw err;
    // No lock file, or its process is gone: ours now.
  }
  fs.mkdirSync(path.dirname(lockFile), { recursive: true });
  fs.writeFileSync(lockFile, String(process.pid));
  holdsLock = true;
}

/** Every fixed port must be free before anything starts; say which variable moves a taken one. */
async function assertPortsFree(procs: StackProcess[]): Promise<void> {
  const taken: string[] = [];
  for (const proc of procs) {
    if (await tcpReachable('127.0.0.1', proc.port, 500)) {
      taken.push(
        `${proc.name} port ${proc.port} is in use (set ${proc.name === 'developer-portal' ? 'PORTAL' : proc.name.toUpperCase()}_PORT to move it)`,
      );
    }
  }
  if (taken.length > 0) throw new Error(`ports in use:\n  ${taken.join('\n  ')}`);
}

async function shutdown(code: number): Promise<void> {
  if (stopping) return;
  stopping = true;
  say('stopping the platform...');
  if (!holdsLock) process.exit(code);
  fs.rmSync(stackFilePath(), { force: true });
  for (const { proc, child } of [...children].reverse()) {
    if (child.exitCode !== null || child.signalCode !== null) continue;
    child.kill('SIGTERM');
    const exited = await Promise.race([
      new Promise<boolean>((r) => child.once('exit', () => r(true))),
      new Promise<boolean>((r) => setTimeout(() => r(false), 15_000)),
    ]);
    if (!exited) child.kill('SIGKILL');
    say(`${proc.name} stopped`);
  }
  await stopKafkaBroker(kafkaDir);
  await stopZipkin(zipkinDir);
  fs.rmSync(lockFile, { force: true });
  say('Kafka and Zipkin stopped; bye');
  process.exit(code);
}

/** Each service's database, dropped first when starting afresh; says when an earlier run's data is kept. */
async function prepareDatabases(procs: StackProcess[], args: UpArguments): Promise<void> {
  const kept: string[] = [];
  for (const proc of procs) {
    if (!proc.database) continue;
    const url = proc.env.DATABASE_URL as string;
    if (args.fresh && (await dropDatabase(url))) say(`dropped database ${proc.database}`);
    if (!(await ensureDatabase(url))) kept.push(proc.database);
  }
  if (kept.length > 0) {
    say(
      `using the data of an earlier run (databases ${kept.join(', ')}); ./dev up --fresh starts from empty`,
    );
  }
}

async function main(): Promise<void> {
  const args = parseUpArguments(process.argv.slice(2));
  process.on('SIGINT', () => void shutdown(0));
  process.on('SIGTERM', () => void shutdown(0));
  const settings = defaultSettings();
  takeLock();
  fs.mkdirSync(logDir, { recursive: true });
  const procs = stackProcesses(settings);
  await assertPortsFree(procs);

  await assertLocalServers(`${settings.pgBaseUrl}/postgres`, settings.redisUrl);
  say('PostgreSQL and Redis answer');
  // Zipkin takes about 25 s to start: it starts first and is waited for just before the services.
  const zipkin = await startZipkin({ port: ports.zipkin, dataDir: zipkinDir, log: say });
  const kafka = await startKafkaBroker({
    port: ports.kafka,
    controllerPort: ports.kafkaController,
    dataDir: kafkaDir,
    topics: ALL_TOPICS,
    fresh: args.fresh,
    log: say,
  });
  say(`Kafka ready on ${kafka.brokers.join(',')}`);

  say('building service bundles');
  for (const proc of procs) await runToEnd(process.execPath, [bundler, proc.dir]);

  await prepareDatabases(procs, args);
  await waitForZipkin(zipkin, zipkinDir);
  say(`Zipkin ready on ${zipkin.url}`);
  for (const proc of procs) {
    children.push({ proc, child: startProcess(proc) });
    await waitReady(proc);
    say(`${proc.name} ready on http://127.0.0.1:${proc.port}`);
  }

  const demo = await seedDemoData({ procs, settings });
  const stack: StackFile = {
    api_base_url: `http://127.0.0.1:${ports.gateway}/v1/`,
    auth_url: settings.authIssuer,
    ...(procs.some((p) => p.name === 'developer-portal') ? { portal_url: portalUrl() } : {}),
    kafka_brokers: kafka.brokers,
    traces_url: `${zipkin.url}/zipkin/`,
    services: Object.fromEntries(procs.map((p) => [p.name, `http://127.0.0.1:${p.port}`])),
    logs_dir: logDir,
    demo,
  };
  writeStackFile(stack);
  printBanner(stack);
}

function printBanner(stack: StackFile): void {
  const lines = [
    '',
    'The ordering platform is up.',
    `  API base      ${stack.api_base_url}   (OpenAPI: ${stack.api_base_url}openapi.json)`,
    `  OAuth host    ${stack.auth_url}`,
    ...(stack.portal_url ? [`  portal        ${stack.portal_url}   (sign in as an account admin)`] : []),
    `  Kafka         ${stack.kafka_brokers.join(',')}`,
    `  traces        ${stack.traces_url}   (Zipkin: search by trace id, request id, order id)`,
    ...Object.entries(stack.services).map(([name, url]) => `  ${name.padEnd(13)} ${url}`),
    `  logs          ${stack.logs_dir}`,
    '',
    'Demo data:',
    ...stack.demo.customers.map(
      (c) => `  account ${c.cust_id}  ${c.name}${c.parent_cust_id ? `  (child of ${c.parent_cust_id})` : ''}`,
    ),
    ...stack.demo.users.map(
      (u) => `  user    ${u.login} / ${u.password}  (${u.cust_id}; ${u.roles.join(', ')})`,
    ),
    ...stack.demo.clients.map(
      (c) => `  client  ${c.client_id} / ${c.client_secret}  (${c.cust_id}; ${c.scopes.join(' ')})`,
    ),
    '',
    `Everything above is in ${stackFilePath()}. Ctrl-C stops the platform.`,
  ];
  console.log(lines.join('\n'));
}

main().catch(async (err) => {
  if (err instanceof UpUsageError) {
    console.error(err.message);
    process.exit(2);
  }
  console.error(`[up] failed: ${err instanceof Error ? err.message : String(err)}`);
  await shutdown(1);
});
