// CPU of a service process per request, for comparing log destinations back to back on a busy
// machine (CPU time, not latency). Starts log-cpu-server.ts with its stdout piped to this process
// (as a container runtime reads it), sends REQUESTS requests over CONCURRENCY keep-alive
// connections, and prints the server's user+system CPU per request from /proc/<pid>/stat and its
// write-like system calls per request (responses and log lines) from /proc/<pid>/io.
//   node --import tsx libs/http/bench/log-cpu.ts            (LOG_DESTINATION=default|pino-default|sync)
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { closedLoopLoad, processCpuMs } from '@ordering/testing';

const REQUESTS = Number(process.env.REQUESTS ?? 20_000);
const CONCURRENCY = Number(process.env.CONCURRENCY ?? 8);

/** Write-like system calls of the whole process (all threads), from /proc/<pid>/io. */
function writeCalls(pid: number): number {
  return Number(/syscw: (\d+)/.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))![1]);
}

async function main(): Promise<void> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(__dirname, 'log-cpu-server.ts')], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: process.env,
  });
  let bytes = 0;
  child.stdout.on('data', (chunk: Buffer) => (bytes += chunk.length));
  const port = await new Promise<number>((resolve) =>
    child.stderr.once('data', (chunk: Buffer) => resolve(Number(String(chunk).trim()))),
  );
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const get = () =>
    new Promise<void>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path: '/item?x=1', agent }, (res) => {
          res.resume();
          res.on('end', resolve);
        })
        .on('error', reject);
    });
  const run = (n: number) => closedLoopLoad(CONCURRENCY, n, get);
  await run(2_000); // warm-up: JIT, connections
  const before = processCpuMs(child.pid!);
  const writesBefore = writeCalls(child.pid!);
  await run(REQUESTS);
  await new Promise((r) => setTimeout(r, 500)); // let the last batched lines be written
  const after = processCpuMs(child.pid!);
  const writes = writeCalls(child.pid!) - writesBefore;
  const perRequestUs = ((after - before) * 1000) / REQUESTS;
  const linesSeen = bytes;
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  console.log(
    `${process.env.LOG_DESTINATION ?? 'default'}: ${REQUESTS} requests, server CPU ${(after - before).toFixed(0)} ms, ` +
      `${perRequestUs.toFixed(1)} µs/request, ${(writes / REQUESTS).toFixed(2)} write calls/request, ${(linesSeen / 1024).toFixed(0)} KiB of log read`,
  );
}

void main();
