// Runs a built service or the gateway as its own process, as production does: the esbuild bundle
// (`dist/start.js`, built by the test command's build stage) with OpenTelemetry loaded first.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { freePort } from '@ordering/testing';

const repoRoot = path.resolve(__dirname, '..', '..');

export interface ServiceProcess {
  name: string;
  url: string;
  /** The process id (for its CPU time in /proc). */
  pid: number;
  /** Everything the process wrote to stdout and stderr so far. */
  output(): string;
  /** SIGTERM and wait for a clean exit; resolves with the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL: no shutdown hook runs. */
  kill(): Promise<void>;
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = net.createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * Free ports below the kernel's ephemeral range (32768-60999 on Linux), for processes that bind
 * them long after they are chosen (`./dev up` checks its ports once Kafka has started): a port from
 * `freePort` may meanwhile be handed to another test's listener or outgoing connection.
 */
export async function freePortsBelowEphemeral(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (!ports.has(port) && (await canListen(port))) ports.add(port);
  }
  return [...ports];
}

function exited(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once('exit', (code) => resolve(code)));
}

/**
 * Starts `<dir>/dist/start.js` (dir: `services/<name>` or `gateway`) with `env` on a free port and
 * waits until `/readyz` answers 200.
 */
export async function startServiceProcess(
  dir: string,
  env: Record<string, string>,
  options: { port?: number; readyTimeoutMs?: number } = {},
): Promise<ServiceProcess> {
  const packageDir = path.join(repoRoot, dir);
  const bundle = path.join(packageDir, 'dist', 'start.js');
  if (!fs.existsSync(bundle)) {
    throw new Error(`${bundle} is missing: build first (pnpm run build, or ./dev test which builds)`);
  }
  const port = options.port ?? (await freePort());
  const name = path.basename(dir);
  const register = path.join(packageDir, 'dist', 'register-telemetry.js');
  const args = ['--enable-source-maps', ...(fs.existsSync(register) ? ['--require', register] : []), bundle];
  let output = '';
  const child = spawn(process.execPath, args, {
    cwd: packageDir,
    env: {
      PATH: process.env.PATH ?? '',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      NODE_ENV: 'test',
      // Named as in production (the chart sets it): the spans' service.
      OTEL_SERVICE_NAME: name,
      ...env,
      PORT: String(port),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;

  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`${name} exited while starting (${child.exitCode ?? child.signalCode}):\n${output}`);
    }
    try {
      const res = await fetch(`${url}/readyz`, { signal: AbortSignal.timeout(1000) });
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} was not ready within the timeout:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }

  return {
    name,
    url,
    pid: child.pid!,
    output: () => output,
    stop: async () => {
      child.kill('SIGTERM');
      return exited(child);
    },
    kill: async () => {
      child.kill('SIGKILL');
      await exited(child);
    },
  };
}
