// Long-running local helpers (the Kafka broker, the Zipkin trace viewer) as detached background
// processes: started once per data folder, remembered by a pid file, stopped with SIGTERM (SIGKILL
// after a bound), and their artifacts fetched once from Maven Central into a cache outside git.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** ${ORDERING_CACHE_DIR:-$XDG_CACHE_HOME/ordering-platform}/<name> */
export function cacheDir(name: string): string {
  const base =
    process.env.ORDERING_CACHE_DIR ??
    path.join(process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), '.cache'), 'ordering-platform');
  return path.join(base, name);
}

/** Fails with a clear message when a tool the local platform needs is not on PATH. */
export function assertTools(tools: string[], what: string): void {
  for (const tool of tools) {
    if (spawnSync(tool, ['-version'], { stdio: 'ignore' }).error) {
      throw new Error(`${what} needs '${tool}' on PATH (Java 17 and Apache Maven); it was not found`);
    }
  }
}

/** Runs Maven (batch, quiet); throws with its output when it fails. */
export function runMaven(args: string[], what: string): void {
  const result = spawnSync('mvn', ['-B', '-q', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    encoding: 'utf8',
  });
  if (result.status !== 0) {
    throw new Error(`${what} from Maven Central failed:\n${result.stdout}\n${result.stderr}`);
  }
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** The pid in `file` when that process still runs. */
export function readPid(file: string): number | undefined {
  try {
    const pid = Number(fs.readFileSync(file, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 && isAlive(pid) ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Starts `cmd` detached (it outlives this process), output appended to `logFile`, pid in `pidFile`. */
export function spawnDetached(
  cmd: string,
  args: string[],
  options: { logFile: string; pidFile: string; cwd: string; env?: NodeJS.ProcessEnv },
): number {
  const out = fs.openSync(options.logFile, 'a');
  const child = spawn(cmd, args, {
    detached: true,
    stdio: ['ignore', out, out],
    cwd: options.cwd,
    env: options.env ?? process.env,
  });
  fs.closeSync(out);
  child.unref();
  if (!child.pid) throw new Error(`could not start ${cmd}`);
  fs.writeFileSync(options.pidFile, String(child.pid));
  return child.pid;
}

/** The last lines of a log file, for an error message. */
export function logTail(file: string, lines = 30): string {
  return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
}

/** Stops the process of `pidFile` with SIGTERM, SIGKILL after `timeoutMs`; forgets the pid. */
export async function stopByPidFile(pidFile: string, timeoutMs = 30_000): Promise<void> {
  const pid = readPid(pidFile);
  if (pid) {
    process.kill(pid, 'SIGTERM');
    const deadline = Date.now() + timeoutMs;
    while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  }
  fs.rmSync(pidFile, { force: true });
}
