// A local HTTP receiver of webhooks for tests: records every request (headers, exact body bytes,
// arrival time) and answers as the test tells it, per path: at once, after a delay, when a promise
// the test holds settles, or never.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Received {
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
  at: number;
}

export interface Answer {
  status: number;
  headers?: Record<string, string>;
  body?: string;
  delayMs?: number;
}

/** The answer to a request; a promise holds the response until it resolves; 'hang' never answers. */
export type Behaviour = (req: Received, count: number) => Answer | Promise<Answer> | 'hang';

export interface Receiver {
  url(path: string): string;
  received(path?: string): Received[];
  /** How requests to `path` are answered (default 200 `ok`). */
  on(path: string, behaviour: Behaviour): void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const all: Received[] = [];
  const behaviours = new Map<string, Behaviour>();
  const hanging = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      const entry: Received = {
        path,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: Date.now(),
      };
      all.push(entry);
      const count = all.filter((r) => r.path === path).length;
      const behaviour: Behaviour = behaviours.get(path) ?? (() => ({ status: 200, body: 'ok' }));
      const answer = behaviour(entry, count);
      if (answer === 'hang') {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        return;
      }
      const send = (a: Answer) => {
        res.writeHead(a.status, { 'Content-Type': 'text/plain', ...a.headers });
        res.end(a.body ?? '');
      };
      if (answer instanceof Promise) {
        hanging.add(res);
        res.on('close', () => hanging.delete(res));
        void answer.then((a) => {
          if (!res.destroyed) send(a);
        });
      } else if (answer.delayMs) setTimeout(() => send(answer), answer.delayMs);
      else send(answer);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path) => `http://127.0.0.1:${port}${path}`,
    received: (path) => (path === undefined ? [...all] : all.filter((r) => r.path === path)),
    on: (path, behaviour) => behaviours.set(path, behaviour),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
