// CPU of writing access lines alone, one line per event-loop turn (as a service logs one line per
// request), through the destination named by LOG_DESTINATION (`default`: createLogger's stdout).
// Pipe stdout to a reader:  node --import tsx libs/http/bench/log-write-cpu.ts | cat >/dev/null
// Prints this process's user+system CPU per line (all threads: /proc/self/stat) on stderr.
import pino from 'pino';
import { processCpuMs } from '@ordering/testing';
import { createLogger } from '../src';

const LINES = Number(process.env.LINES ?? 100_000);
const variants: Record<string, () => pino.DestinationStream | undefined> = {
  default: () => undefined,
  'pino-default': () => pino.destination({ dest: 1, sync: false, minLength: 0 }),
  sync: () => pino.destination({ dest: 1, sync: true, minLength: 0 }),
};
const name = process.env.LOG_DESTINATION ?? 'default';
const destination = variants[name]!();
const logger = createLogger({ service: 'log-write-cpu', ...(destination ? { destination } : {}) });
const lines = logger.child({}, { redact: [] });

async function main(): Promise<void> {
  const turn = () => new Promise((resolve) => setImmediate(resolve));
  const run = async (n: number) => {
    for (let i = 0; i < n; i++) {
      lines.info(
        {
          request_id: 'req_0123456789abcdef',
          trace_id: '0af7651916cd43dd8448eb211c80319c',
          req: { method: 'GET', url: '/v1/catalog/items?q=widget', remoteAddress: '127.0.0.1' },
          res: { statusCode: 200 },
          responseTime: 3,
        },
        'GET /v1/catalog/items?q=widget 200',
      );
      await turn();
    }
  };
  await run(10_000);
  const idle = async () => {
    const start = processCpuMs(process.pid);
    for (let i = 0; i < LINES; i++) await turn();
    return processCpuMs(process.pid) - start;
  };
  const loopOnly = await idle();
  const before = processCpuMs(process.pid);
  await run(LINES);
  await new Promise((resolve) => logger.flush(resolve));
  const used = processCpuMs(process.pid) - before - loopOnly;
  process.stderr.write(`${name}: ${((used * 1000) / LINES).toFixed(2)} µs CPU per line\n`);
}

void main();
