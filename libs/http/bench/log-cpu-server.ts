// The server side of log-cpu.ts: a createApp service with one trivial route, logging its access
// lines to stdout through the destination named by LOG_DESTINATION (`default`: createLogger's).
import http from 'node:http';
import pino from 'pino';
import { createApp, createLogger } from '../src';

const variants: Record<string, () => pino.DestinationStream | undefined> = {
  default: () => undefined,
  'pino-default': () => pino.destination({ dest: 1, sync: false, minLength: 0 }),
  sync: () => pino.destination({ dest: 1, sync: true, minLength: 0 }),
  'buffered-sync': () => pino.destination({ dest: 1, sync: true, minLength: 4096 }),
};
const destination = variants[process.env.LOG_DESTINATION ?? 'default']!();
const logger = createLogger({ service: 'log-cpu', ...(destination ? { destination } : {}) });
const app = createApp({
  service: 'log-cpu',
  logger,
  routes: (app) => app.get('/item', (_req, res) => void res.json({ id: 'itm_1', name: 'widget' })),
});
const server = http.createServer(app).listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stderr.write(`${(server.address() as { port: number }).port}\n`);
});
process.on('SIGTERM', () => server.close(() => logger.flush(() => process.exit(0))));
