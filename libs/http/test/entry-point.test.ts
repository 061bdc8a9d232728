import { spawn } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import readline from 'node:readline';
import { type EntryPoint, createApp, httpEntryPoint, runService } from '../src';
import { captureLogs } from './log-capture';

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function get(url: string, agent?: http.Agent): Promise<Reply> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
}

function deferred<T = void>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

function slowApp() {
  const entered = deferred();
  const release = deferred();
  const logs = captureLogs('slow');
  const app = createApp({
    service: 'slow',
    logger: logs.logger,
    routes: (app) => {
      app.get('/slow', async (_req, res) => {
        entered.resolve();
        await release.promise;
        res.json({ done: true });
      });
    },
  });
  return { app, entered, release, logs };
}

describe('httpEntryPoint', () => {
  it('serves on a free port and reports its URL', async () => {
    const { app, logs } = slowApp();
    const ep = httpEntryPoint(app, { port: 0, host: '127.0.0.1', logger: logs.logger });
    expect(() => ep.url()).toThrow('not listening');
    await ep.start();
    try {
      expect(ep.url()).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      expect((await get(`${ep.url()}/healthz`)).body).toBe('{"status":"ok"}');
    } finally {
      await ep.stop();
    }
  });

  it('stopping: refuses new connections, closes idle keep-alive sockets, lets an in-flight request finish', async () => {
    const { app, entered, release, logs } = slowApp();
    const ep = httpEntryPoint(app, { port: 0, host: '127.0.0.1', logger: logs.logger });
    await ep.start();
    const url = ep.url();
    // Separate agents: one keeps an idle socket, the other would otherwise reuse it for /slow.
    const agent = new http.Agent({ keepAlive: true });
    const slowAgent = new http.Agent({ keepAlive: true });
    try {
      // An idle keep-alive socket, as a load balancer or the gateway would hold.
      await get(`${url}/healthz`, agent);
      const idleSocket = Object.values(agent.freeSockets).flat()[0];
      expect(idleSocket).toBeDefined();
      const idleClosed = new Promise<void>((resolve) => idleSocket?.once('close', () => resolve()));

      const slow = get(`${url}/slow`, slowAgent);
      await entered.promise;

      let stopped = false;
      const stopping = ep.stop().then(() => {
        stopped = true;
      });

      await idleClosed;
      await expect(get(`${url}/healthz`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
      expect(stopped).toBe(false);

      release.resolve();
      const reply = await slow;
      expect(reply).toMatchObject({ status: 200, body: '{"done":true}' });
      expect(reply.headers.connection).toBe('close');
      await stopping;
      expect(stopped).toBe(true);
    } finally {
      release.resolve();
      agent.destroy();
      slowAgent.destroy();
      await ep.stop();
    }
  });

  it('stopping is bounded: a request that never finishes is cut off after drainTimeoutMs', async () => {
    const { app, entered, release, logs } = slowApp();
    const ep = httpEntryPoint(app, { port: 0, host: '127.0.0.1', logger: logs.logger, drainTimeoutMs: 100 });
    await ep.start();
    try {
      const slow = get(`${ep.url()}/slow`);
      await entered.promise;
      const started = Date.now();
      await ep.stop();
      expect(Date.now() - started).toBeLessThan(2000);
      await expect(slow).rejects.toMatchObject({ code: 'ECONNRESET' });
      expect(logs.lines().some((l) => l.level === 'warn' && String(l.msg).includes('drain timeout'))).toBe(
        true,
      );
    } finally {
      release.resolve();
    }
  });

  it('fails to start on a port already taken', async () => {
    const { app, logs } = slowApp();
    const first = httpEntryPoint(app, { port: 0, host: '127.0.0.1', logger: logs.logger });
    await first.start();
    try {
      const port = Number(new URL(first.url()).port);
      const second = httpEntryPoint(app, { port, host: '127.0.0.1', logger: logs.logger });
      await expect(second.start()).rejects.toMatchObject({ code: 'EADDRINUSE' });
    } finally {
      await first.stop();
    }
  });
});

describe('runService', () => {
  function recording(
    events: string[],
    name: string,
    behaviour: { failStart?: boolean; stop?: () => Promise<void> } = {},
  ): EntryPoint {
    return {
      name,
      start: async () => {
        if (behaviour.failStart) throw new Error(`${name} cannot start`);
        events.push(`start ${name}`);
      },
      stop: async () => {
        events.push(`stop ${name}`);
        await behaviour.stop?.();
      },
    };
  }

  // Each test uses its own signal name so that no listener of another test can react.
  it('starts entry points in order and, on SIGTERM, stops them in reverse once, then exits 0', async () => {
    const events: string[] = [];
    const exited = deferred<number>();
    const { logger, lines } = captureLogs('svc');
    await runService({
      service: 'svc',
      logger,
      entryPoints: ['http', 'consumer', 'relay'].map((n) => recording(events, n)),
      signals: ['SIGUSR2'],
      exit: exited.resolve,
    });
    expect(events).toEqual(['start http', 'start consumer', 'start relay']);
    process.emit('SIGUSR2', 'SIGUSR2');
    process.emit('SIGUSR2', 'SIGUSR2');
    expect(await exited.promise).toBe(0);
    expect(events.slice(3)).toEqual(['stop relay', 'stop consumer', 'stop http']);
    expect(lines().some((l) => l.msg === 'svc is already stopping')).toBe(true);
    expect(process.listenerCount('SIGUSR2')).toBe(0);
  });

  it('exits 1 when an entry point fails to stop, still stopping the others', async () => {
    const events: string[] = [];
    const exited = deferred<number>();
    await runService({
      service: 'svc',
      logger: captureLogs('svc').logger,
      entryPoints: [
        recording(events, 'a'),
        recording(events, 'b', { stop: () => Promise.reject(new Error('stuck')) }),
        recording(events, 'c'),
      ],
      signals: ['SIGUSR2'],
      exit: exited.resolve,
    });
    process.emit('SIGUSR2', 'SIGUSR2');
    expect(await exited.promise).toBe(1);
    expect(events.slice(3)).toEqual(['stop c', 'stop b', 'stop a']);
  });

  it('exits 1 when stopping takes longer than shutdownTimeoutMs', async () => {
    const exited = deferred<number>();
    const never = new Promise<void>(() => {});
    await runService({
      service: 'svc',
      logger: captureLogs('svc').logger,
      entryPoints: [recording([], 'hangs', { stop: () => never })],
      shutdownTimeoutMs: 50,
      signals: ['SIGUSR2'],
      exit: exited.resolve,
    });
    process.emit('SIGUSR2', 'SIGUSR2');
    expect(await exited.promise).toBe(1);
  });

  it('when one entry point fails to start, stops those already started and rejects', async () => {
    const events: string[] = [];
    await expect(
      runService({
        service: 'svc',
        logger: captureLogs('svc').logger,
        entryPoints: [
          recording(events, 'a'),
          recording(events, 'b', { failStart: true }),
          recording(events, 'c'),
        ],
        signals: ['SIGUSR2'],
        exit: () => {},
      }),
    ).rejects.toThrow('b cannot start');
    expect(events).toEqual(['start a', 'stop a']);
    expect(process.listenerCount('SIGUSR2')).toBe(0);
  });

  it('stop() stops in reverse without exiting and removes the signal listeners', async () => {
    const events: string[] = [];
    const exit = jest.fn();
    const running = await runService({
      service: 'svc',
      logger: captureLogs('svc').logger,
      entryPoints: [recording(events, 'a'), recording(events, 'b')],
      signals: ['SIGUSR2'],
      exit,
    });
    await running.stop();
    await running.stop();
    expect(events).toEqual(['start a', 'start b', 'stop b', 'stop a']);
    expect(exit).not.toHaveBeenCalled();
    expect(process.listenerCount('SIGUSR2')).toBe(0);
  });

  it('a real process on SIGTERM finishes its in-flight request, then exits 0', async () => {
    const root = path.resolve(__dirname, '../../..');
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', path.join(__dirname, 'fixtures/slow-service.ts')],
      {
        cwd: root,
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const exitCode = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    try {
      const lines = readline.createInterface({ input: child.stdout });
      const logged: Array<Record<string, unknown>> = [];
      const waitFor = (pred: (l: Record<string, unknown>) => boolean) =>
        new Promise<Record<string, unknown>>((resolve, reject) => {
          const found = logged.find(pred);
          if (found) return resolve(found);
          const onLine = (line: string) => {
            const entry = JSON.parse(line) as Record<string, unknown>;
            if (pred(entry)) {
              lines.off('line', onLine);
              resolve(entry);
            }
          };
          lines.on('line', onLine);
          child.once('exit', () =>
            reject(new Error('the service exited before logging what the test waits for')),
          );
        });
      lines.on('line', (line) => logged.push(JSON.parse(line) as Record<string, unknown>));

      const listening = await waitFor((l) => l.msg === 'listening');
      const url = String(listening.url);
      const slow = get(`${url}/slow`);
      await waitFor((l) => l.msg === 'slow request entered');

      child.kill('SIGTERM');
      expect(await slow).toMatchObject({ status: 200, body: '{"done":true}' });
      expect(await exitCode).toBe(0);
      expect(logged.map((l) => l.msg)).toEqual(
        expect.arrayContaining(['slow-service stopping', 'stopped', 'slow-service stopped']),
      );
      await expect(get(`${url}/healthz`)).rejects.toMatchObject({ code: 'ECONNREFUSED' });
    } finally {
      child.kill('SIGKILL');
    }
  });
});
