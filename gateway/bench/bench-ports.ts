// Ports for the benchmarks' processes and servers. On a machine shared with other jobs, each job
// keeps to its own range: BENCH_PORTS=18400-18499 hands out the free ports of that range in order.
// Without it, the system picks any free port (port 0).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

function range(spec: string | undefined): { next: number; last: number } | undefined {
  if (!spec) return undefined;
  const match = /^(\d+)-(\d+)$/.exec(spec.trim());
  if (!match) throw new Error(`BENCH_PORTS must look like 18400-18499, got '${spec}'`);
  return { next: Number(match[1]), last: Number(match[2]) };
}

const ports = range(process.env.BENCH_PORTS);

function tryListen(port: number): Promise<number | undefined> {
  const server = http.createServer();
  return new Promise((resolve) => {
    server.once('error', () => resolve(undefined));
    server.listen(port, '127.0.0.1', () => {
      const { port: bound } = server.address() as AddressInfo;
      server.close(() => resolve(bound));
    });
  });
}

/** A port free right now (bound, then released): the next free one of BENCH_PORTS, else any. */
export async function freePort(): Promise<number> {
  if (!ports) return (await tryListen(0))!;
  while (ports.next <= ports.last) {
    const bound = await tryListen(ports.next++);
    if (bound !== undefined) return bound;
  }
  throw new Error(`no free port left in BENCH_PORTS=${process.env.BENCH_PORTS}`);
}

/** Listens on a port of BENCH_PORTS (else any) and returns it. */
export async function listenOnFreePort(server: http.Server): Promise<number> {
  for (;;) {
    const port = await freePort();
    const listening = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (listening) return (server.address() as AddressInfo).port;
  }
}
