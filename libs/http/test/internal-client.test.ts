import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { UnavailableError } from '@ordering/errors';
import { IDENTITY_HEADER, InternalApiClient, verifyIdentity } from '../src';

const SECRET = 'test-identity-secret-0123456789';

/** A called service: answers each request with what `answer` decides. */
async function serve(
  answer: (req: http.IncomingMessage, body: string, res: http.ServerResponse) => void,
): Promise<{ url: string; close(): Promise<void>; connections(): number }> {
  let connections = 0;
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => answer(req, body, res));
  });
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const client = (baseUrl: string, timeoutMs = 2000) =>
  new InternalApiClient({ baseUrl, secret: SECRET, caller: 'orders', callee: 'catalog', timeoutMs });

describe('InternalApiClient', () => {
  it('sends the JSON body with a signed internal identity and returns a 2xx or 4xx answer', async () => {
    const seen: { method?: string; path?: string; body?: string; caller?: string }[] = [];
    const svc = await serve((req, body, res) => {
      seen.push({
        method: req.method!,
        path: req.url!,
        body,
        caller: verifyIdentity(String(req.headers[IDENTITY_HEADER.toLowerCase()]), SECRET).login,
      });
      res.statusCode = req.url === '/missing' ? 404 : 200;
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ echo: body ? JSON.parse(body) : null }));
    });
    try {
      const c = client(svc.url);
      const ok = await c.request('POST', '/internal/v1/prices', {
        lines: [{ item_code: 'É-1', quantity: 2 }],
      });
      expect(ok).toEqual({ status: 200, body: { echo: { lines: [{ item_code: 'É-1', quantity: 2 }] } } });
      const missing = await c.request('GET', '/missing');
      expect(missing).toEqual({ status: 404, body: { echo: null } });
      expect(seen).toEqual([
        {
          method: 'POST',
          path: '/internal/v1/prices',
          body: JSON.stringify({ lines: [{ item_code: 'É-1', quantity: 2 }] }),
          caller: 'orders',
        },
        { method: 'GET', path: '/missing', body: '', caller: 'orders' },
      ]);
      // Calls one after the other share one kept-alive connection.
      expect(svc.connections()).toBe(1);
    } finally {
      await svc.close();
    }
  });

  it('turns a 5xx, a non-JSON answer, a refused connection and a timeout into UnavailableError', async () => {
    const svc = await serve((req, _body, res) => {
      if (req.url === '/slow') return; // never answers
      if (req.url === '/html') {
        res.end('<html>');
        return;
      }
      res.statusCode = 502;
      res.end('{}');
    });
    try {
      const c = client(svc.url, 300);
      await expect(c.request('GET', '/boom')).rejects.toThrow(UnavailableError);
      await expect(c.request('GET', '/html')).rejects.toThrow(/other than JSON/);
      const started = Date.now();
      await expect(c.request('GET', '/slow')).rejects.toThrow(UnavailableError);
      expect(Date.now() - started).toBeLessThan(2000);
    } finally {
      await svc.close();
    }
    await expect(client(svc.url).request('GET', '/any')).rejects.toThrow(UnavailableError);
  });
});
