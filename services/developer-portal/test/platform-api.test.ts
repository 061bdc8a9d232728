// The API client's paths, against a local HTTP server that records what it is asked: an id from a
// page's URL stays one path segment and never reaches another endpoint.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApiError, PlatformApi } from '../src/data-access/platform-api';

let server: Server;
let baseUrl: string;
const seen: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'No such thing' } }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

it('refuses `.` and `..` as ids instead of letting them climb to another endpoint', async () => {
  const api = new PlatformApi(baseUrl, 2000).as('token');
  seen.length = 0;
  const attempts = [
    () => api.getWebhook('..'),
    () => api.listDeliveries('.', {}),
    () => api.getDelivery('we_1', '..'),
    () => api.replayDelivery('we_1', '..'),
    () => api.rotateOAuthClientSecret('..'),
  ];
  for (const attempt of attempts) {
    const err: unknown = await attempt().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(404);
  }
  expect(seen).toEqual([]);
  // Ordinary ids are one encoded segment each.
  await api.getDelivery('we_1', 'a/b?c').catch(() => undefined);
  expect(seen).toEqual(['GET /v1/webhooks/we_1/deliveries/a%2Fb%3Fc']);
});
