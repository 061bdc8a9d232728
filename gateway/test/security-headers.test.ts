// What every answer tells a client about itself, whatever produced it: a service's answer forwarded
// as it came, a refusal of the gateway, its Express app (unknown path, OpenAPI document) and a
// protocol error answered on the socket.
import net from 'node:net';
import request from 'supertest';
import { type Harness, startHarness } from './support/gateway-harness';

let h: Harness;
let token: string;

beforeAll(async () => {
  h = await startHarness();
  token = h.issuer.mint({ scope: 'orders:read' });
});
afterAll(() => h.stop());
beforeEach(() => Object.values(h.upstreams).forEach((u) => u.reset()));

/** Raw bytes to the gateway; everything it answers until it closes the connection. */
function raw(url: string, bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(new URL(url).port), '127.0.0.1');
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (text += d));
    socket.on('error', reject);
    socket.on('close', () => resolve(text));
    socket.write(bytes);
  });
}

describe('X-Content-Type-Options: nosniff', () => {
  it("is on a service's answer, which echoes the caller's input, though the service did not send it", async () => {
    // The answer of a service that echoes a path parameter, as "No such order: <id>" does.
    h.upstreams.orders.behaviour = (_req, res) => {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"No such order: <script>alert(1)</script>"}}');
    };
    const res = await request(h.url)
      .get('/v1/orders/%3Cscript%3Ealert(1)%3C%2Fscript%3E')
      .set('Authorization', `Bearer ${token}`);
    expect(res.status).toBe(404);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it("is on the gateway's own refusals and its Express app's answers", async () => {
    const answers = await Promise.all([
      request(h.url).get('/v1/orders'), // 401, no token
      request(h.url).get('/v1/orders').set('Authorization', 'Bearer not-a-token'), // 401
      request(h.url).delete('/v1/orders/o_1').set('Authorization', `Bearer ${token}`), // 405
      request(h.url).get('/v1/<script>'), // 404 of an unknown path, without a token
      request(h.url).get('/v1/openapi.json'),
    ]);
    expect(answers.map((r) => [r.status, r.headers['x-content-type-options']])).toEqual([
      [401, 'nosniff'],
      [401, 'nosniff'],
      [405, 'nosniff'],
      [404, 'nosniff'],
      [200, 'nosniff'],
    ]);
  });

  it('is on a protocol error answered on the socket', async () => {
    const text = await raw(h.url, 'GET /v1/orders HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n');
    expect(text).toMatch(/^HTTP\/1\.1 400 /);
    expect(text).toMatch(/\r\nX-Content-Type-Options: nosniff\r\n/i);
    const malformed = await raw(h.url, 'GET /v1/orders HTTP/1.1\r\nHost: a\r\nX: a\r\n b\r\n\r\n');
    expect(malformed).toMatch(/^HTTP\/1\.1 400 /);
    expect(malformed).toMatch(/\r\nX-Content-Type-Options: nosniff\r\n/i);
  });
});

describe('Cache-Control on the API', () => {
  it("is no-store on a service's answer that says nothing about caching (an account's data)", async () => {
    h.upstreams.customers.behaviour = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"id":"alice","object":"user","email":"alice@acme.example"}');
    };
    const res = await request(h.url)
      .get('/v1/users/alice')
      .set('Authorization', `Bearer ${h.issuer.mint({ scope: 'users:read' })}`);
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it("keeps the service's own Cache-Control", async () => {
    h.upstreams.orders.behaviour = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'private, max-age=60' });
      res.end('{}');
    };
    const res = await request(h.url).get('/v1/orders/o_1').set('Authorization', `Bearer ${token}`);
    expect(res.headers['cache-control']).toBe('private, max-age=60');
  });

  it("is no-store on the gateway's own answers to API requests; the OpenAPI document stays cacheable", async () => {
    const [unauthorized, wrongMethod, document] = await Promise.all([
      request(h.url).get('/v1/orders'),
      request(h.url).delete('/v1/orders/o_1').set('Authorization', `Bearer ${token}`),
      request(h.url).get('/v1/openapi.json'),
    ]);
    expect([unauthorized.status, unauthorized.headers['cache-control']]).toEqual([401, 'no-store']);
    expect([wrongMethod.status, wrongMethod.headers['cache-control']]).toEqual([405, 'no-store']);
    expect([document.status, document.headers['cache-control']]).toEqual([200, 'public, max-age=300']);
  });
});
