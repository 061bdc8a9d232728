// The README's test command (`./dev test`): lint, type-check, build, then every jest project (unit,
// component, end-to-end) against real PostgreSQL, Redis and the project's own Kafka broker, which
// this script starts and stops itself. Prints each stage's duration and ends with
// "N passed, N failed".
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { ALL_TOPICS } from '@ordering/contracts';
import { ensureHelm } from '../helm-tool/helm-binary';
import { localStateDir, startKafkaBroker, stopKafkaBroker } from './kafka-broker';
import { assertLocalServers } from './local-servers';
import { ensureChromium } from './chromium';
import { ensurePromtool } from './promtool';

const root = path.resolve(__dirname, '..', '..');
const kafkaDir = localStateDir('kafka-test');
const kafkaPort = Number(process.env.TEST_KAFKA_PORT ?? 29092);
const kafkaControllerPort = Number(process.env.TEST_KAFKA_CONTROLLER_PORT ?? 29093);

interface Stage {
  name: string;
  ok: boolean;
  seconds: number;
}
const stages: Stage[] = [];

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd: root, stdio: 'inherit', env });
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
    child.on('error', (err) => {
      console.error(err);
      resolve(1);
    });
  });
}

async function stage(name: string, fn: () => Promise<boolean>): Promise<boolean> {
  const started = Date.now();
  console.log(`\n=== ${name}`);
  let ok = false;
  try {
    ok = await fn();
  } catch (err) {
    console.error(err instanceof Error ? err.message : err);
  }
  const seconds = (Date.now() - started) / 1000;
  stages.push({ name, ok, seconds });
  console.log(`=== ${name}: ${ok ? 'ok' : 'FAILED'} in ${seconds.toFixed(1)} s`);
  return ok;
}

interface JestSummary {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numRuntimeErrorTestSuites: number;
}

async function main(): Promise<void> {
  const total = Date.now();
  let kafkaStartedHere = false;
  let jest: JestSummary | undefined;

  await stage('lint (eslint + prettier)', async () => {
    const eslint = await run('eslint', ['--max-warnings', '0', '.']);
    const prettier = await run('prettier', ['--check', '--log-level', 'warn', '.']);
    return eslint === 0 && prettier === 0;
  });
  await stage('type-check (tsc)', async () => (await run('tsc', ['-p', 'tsconfig.json', '--noEmit'])) === 0);
  await stage('build (service bundles)', async () => (await run('pnpm', ['run', '--silent', 'build'])) === 0);

  const infraOk = await stage(
    'infrastructure (PostgreSQL, Redis, Kafka, Helm, promtool, Chromium)',
    async () => {
      await assertLocalServers();
      // The developer portal's browser tests drive Debian's chromium.
      ensureChromium((m) => console.log(`  ${m}`));
      // Real Helm for the chart's tests: fetched once into the cache (helm-tool/helm-binary.ts).
      ensureHelm((m) => console.log(`  ${m}`));
      // promtool for the alert rules' tests (Debian's prometheus package, installed when missing).
      ensurePromtool((m) => console.log(`  ${m}`));
      const broker = await startKafkaBroker({
        port: kafkaPort,
        controllerPort: kafkaControllerPort,
        dataDir: kafkaDir,
        topics: ALL_TOPICS,
        // Empty topics each run: consumers reading from the beginning need not replay old runs.
        fresh: true,
        log: (m) => console.log(`  ${m}`),
      });
      kafkaStartedHere = broker.started;
      process.env.KAFKA_BROKERS = broker.brokers.join(',');
      return true;
    },
  );

  if (infraOk) {
    const results = localStateDir('jest-results.json');
    fs.mkdirSync(path.dirname(results), { recursive: true });
    fs.rmSync(results, { force: true });
    await stage('tests (jest: libs, gateway, services, deploy, e2e)', async () => {
      const code = await run('jest', ['--ci', '--json', '--outputFile', results], {
        ...process.env,
        NODE_ENV: 'test',
      });
      if (fs.existsSync(results)) jest = JSON.parse(fs.readFileSync(results, 'utf8')) as JestSummary;
      return code === 0;
    });
  }

  if (kafkaStartedHere) {
    await stage('stop Kafka', async () => {
      await stopKafkaBroker(kafkaDir);
      return true;
    });
  }

  console.log('\n=== summary');
  for (const s of stages)
    console.log(`  ${s.ok ? 'ok    ' : 'FAILED'}  ${s.seconds.toFixed(1).padStart(6)} s  ${s.name}`);
  console.log(`  total ${((Date.now() - total) / 1000).toFixed(1)} s`);
  // Lint, type-check, build and infrastructure count as one check each beside the jest tests.
  const checks = stages.filter((s) => !s.name.startsWith('tests') && s.name !== 'stop Kafka');
  const passed = (jest?.numPassedTests ?? 0) + checks.filter((s) => s.ok).length;
  const failed =
    (jest?.numFailedTests ?? 0) + (jest?.numRuntimeErrorTestSuites ?? 0) + checks.filter((s) => !s.ok).length;
  const skipped = jest?.numPendingTests ?? 0;
  const testsStage = stages.find((s) => s.name.startsWith('tests'));
  const allOk = stages.every((s) => s.ok) && testsStage !== undefined;
  const extraFailure = allOk || failed > 0 ? 0 : 1; // a failed stage with no counted failure still fails
  console.log(`${passed} passed, ${failed + extraFailure} failed${skipped ? `, ${skipped} skipped` : ''}`);
  process.exit(allOk ? 0 : 1);
}

main().catch((err) => {
  console.error(err);
  console.log('0 passed, 1 failed');
  process.exit(1);
});
