import { once } from 'node:events';
import http from 'node:http';
import net from 'node:net';
import request from 'supertest';
import { expectApiError } from './support/api-assertions';
import { type Harness, startHarness } from './support/gateway-harness';
import { closedPort } from './support/recording-upstream';

let h: Harness;
let token: string;

beforeAll(async () => {
  h = await startHarness({ env: { UPSTREAM_TIMEOUT_MS: '300', BODY_LIMIT_BYTES: '65536' } });
  token = h.issuer.mint({ scope: 'orders:read orders:write catalog:read' });
});
afterAll(() => h.stop());
beforeEach(() => Object.values(h.upstreams).forEach((u) => u.reset()));

const orders = () => h.upstreams.orders;

describe('request headers towards the service', () => {
  it("passes the caller's X-Request-Id through to the service and back", async () => {
    const res = await request(h.url)
      .get('/v1/orders/o_1')
      .set('Authorization', `Bearer ${token}`)
      .set('X-Request-Id', 'client-chosen-id-123')
      .expect(200);
    expect(res.headers['x-request-id']).toBe('client-chosen-id-123');
    expect(orders().last?.headers['x-request-id']).toBe('client-chosen-id-123');
  });

  it('generates a request id when the caller sends none and gives the service the same one', async () => {
    const res = await request(h.url)
      .get('/v1/orders/o_1')
      .set('Authorization', `Bearer ${token}`)
      .expect(200);
    expect(res.headers['x-request-id']).toMatch(/^req_/);
    expect(orders().last?.headers['x-request-id']).toBe(res.headers['x-request-id']);
  });

  it("forwards end-to-end headers, but neither hop-by-hop ones nor the client's trace context", async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    await request(h.url)
      .get('/v1/orders/o_1')
      .set('Authorization', `Bearer ${token}`)
      .set('traceparent', traceparent)
      .set('tracestate', 'vendor=abc')
      .set('Accept-Language', 'de')
      .set('Connection', 'keep-alive, X-Hop')
      .set('X-Hop', 'connection-scoped')
      .set('TE', 'trailers')
      .set('Proxy-Authorization', 'Basic abc')
      .expect(200);
    const seen = orders().last?.headers ?? {};
    // The gateway starts the platform's own trace (gateway-tracing.test.ts); a client's is not continued.
    expect(seen.traceparent).not.toBe(traceparent);
    expect(seen.tracestate).toBeUndefined();
    expect(seen['accept-language']).toBe('de');
    expect(seen['x-hop']).toBeUndefined();
    expect(seen.te).toBeUndefined();
    expect(seen['proxy-authorization']).toBeUndefined();
  });

  it("sets X-Forwarded-* from the connection, not from the client's claims", async () => {
    await request(h.url)
      .get('/v1/orders/o_1')
      .set('Authorization', `Bearer ${token}`)
      .set('Host', 'api.example.test')
      .set('X-Forwarded-For', '6.6.6.6')
      .set('X-Forwarded-Host', 'evil.test')
      .expect(200);
    const seen = orders().last?.headers ?? {};
    expect(seen['x-forwarded-for']).toBe('127.0.0.1');
    expect(seen['x-forwarded-proto']).toBe('http');
    expect(seen['x-forwarded-host']).toBe('api.example.test');
    expect(seen.host).toBe(new URL(orders().url).host);
  });
});

describe('behind a trusted load balancer (TRUST_PROXY=true)', () => {
  it('appends the peer to X-Forwarded-For and keeps the original protocol and host', async () => {
    const behind = await startHarness({ issuer: h.issuer, env: { TRUST_PROXY: 'true' } });
    try {
      await request(behind.url)
        .get('/v1/orders')
        .set('Authorization', `Bearer ${token}`)
        .set('X-Forwarded-For', '203.0.113.7')
        .set('X-Forwarded-Proto', 'https')
        .set('X-Forwarded-Host', 'api.example.com')
        .expect(200);
      const seen = behind.upstreams.orders.last?.headers ?? {};
      expect(seen['x-forwarded-for']).toBe('203.0.113.7, 127.0.0.1');
      expect(seen['x-forwarded-proto']).toBe('https');
      expect(seen['x-forwarded-host']).toBe('api.example.com');
    } finally {
      await behind.stop();
    }
  });
});

describe('bodies', () => {
  it('streams the request body to the service byte for byte, with its content type', async () => {
    const body = JSON.stringify({
      cust_id: 'ACME',
      items: [{ item_code: 'SKU-1', quantity: 2 }],
      note: 'ü ✓',
    });
    await request(h.url)
      .post('/v1/orders')
      .set('Authorization', `Bearer ${token}`)
      .set('Content-Type', 'application/json; charset=utf-8')
      .set('Idempotency-Key', 'key-1')
      .send(body)
      .expect(200);
    const seen = orders().last;
    expect(seen?.body.toString('utf8')).toBe(body);
    expect(seen?.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(seen?.headers['idempotency-key']).toBe('key-1');
  });

  it('forwards a chunked request body without buffering it', async () => {
    const url = new URL('/v1/orders', h.url);
    const req = http.request(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    });
    req.write('{"part":');
    req.write('"one"}');
    req.end();
    const [res] = (await once(req, 'response')) as [http.IncomingMessage];
    res.resume();
    await once(res, 'end');
    expect(res.statusCode).toBe(200);
    expect(orders().last?.body.toString()).toBe('{"part":"one"}');
  });

  it('refuses a body over the limit with 413 body_too_large without forwarding it', async () => {
    const res = await request(h.url)
      .post('/v1/orders')
      .set('Authorization', `Bearer ${token}`)
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ pad: 'x'.repeat(70_000) }));
    expectApiError(res, 413, 'invalid_request', 'body_too_large');
    expect(orders().received).toHaveLength(0);
  });

  it('refuses a chunked body that grows over the limit with 413, and the service never gets all of it', async () => {
    const req = http.request(new URL('/v1/orders', h.url), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    });
    req.on('error', () => undefined); // the gateway may close the connection while we still write
    req.write(`{"pad":"${'x'.repeat(40_000)}`);
    req.write(`${'x'.repeat(40_000)}"}`);
    req.end();
    const [res] = (await once(req, 'response')) as [http.IncomingMessage];
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    await once(res, 'end');
    expect(res.statusCode).toBe(413);
    expect(JSON.parse(Buffer.concat(chunks).toString()).error.code).toBe('body_too_large');
    expect(orders().received).toHaveLength(0);
  });

  // A client still sending when the gateway answered: undici hands the request stream back
  // destroyed and detached from its socket, which the entry point must still close.
  function sendWhileAnswered(
    head: string,
    more: () => Buffer | string,
    gapMs: number,
  ): Promise<{ text: string; closedAfterMs: number }> {
    const { port } = new URL(h.url);
    return new Promise((resolve) => {
      const started = Date.now();
      const socket = net.connect(Number(port), '127.0.0.1');
      let got = '';
      let timer: NodeJS.Timeout | undefined;
      const send = () => {
        if (socket.destroyed || !socket.writable) return;
        if (socket.write(more())) timer = setTimeout(send, gapMs);
        else socket.once('drain', send);
      };
      socket.on('connect', () => {
        socket.write(head);
        send();
      });
      socket.on('data', (d: Buffer) => (got += d.toString('latin1')));
      socket.on('error', () => undefined);
      socket.on('close', () => {
        clearTimeout(timer);
        resolve({ text: got, closedAfterMs: Date.now() - started });
      });
      setTimeout(() => socket.destroy(), 8000).unref();
    });
  }

  it('answers 413 to a chunked body still streaming in over the limit, closes that connection and keeps serving', async () => {
    const chunk = Buffer.concat([Buffer.from('4000\r\n'), Buffer.alloc(0x4000, 0x20), Buffer.from('\r\n')]);
    const { text, closedAfterMs } = await sendWhileAnswered(
      `POST /v1/orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
        'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n',
      () => chunk,
      0,
    );
    expect(text).toMatch(/^HTTP\/1.1 413 /);
    expect(text).toContain('"code":"body_too_large"');
    expect(orders().received).toHaveLength(0);
    expect(closedAfterMs).toBeLessThan(5000);
    await request(h.url).get('/v1/orders').set('Authorization', `Bearer ${token}`).expect(200);
  });

  it('answers 504 while the client still trickles its body, closes that connection and keeps serving', async () => {
    const { text, closedAfterMs } = await sendWhileAnswered(
      `POST /v1/orders HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{',
      () => ' ',
      100,
    );
    expect(text).toMatch(/^HTTP\/1.1 504 /);
    expect(closedAfterMs).toBeLessThan(5000);
    await request(h.url).get('/v1/orders').set('Authorization', `Bearer ${token}`).expect(200);
  });

  it("streams the service's response back as it is produced", async () => {
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    orders().behaviour = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/x-ndjson' });
      res.write('{"n":1}\n');
      void released.then(() => res.end('{"n":2}\n'));
    };
    const req = http.get(new URL('/v1/orders', h.url), { headers: { authorization: `Bearer ${token}` } });
    const [res] = (await once(req, 'response')) as [http.IncomingMessage];
    // The first chunk arrives while the service still holds the rest back.
    const [first] = (await once(res, 'data')) as [Buffer];
    expect(first.toString()).toBe('{"n":1}\n');
    release();
    const rest: Buffer[] = [];
    res.on('data', (c: Buffer) => rest.push(c));
    await once(res, 'end');
    expect(Buffer.concat(rest).toString()).toBe('{"n":2}\n');
  });

  it("passes the service's error status, headers and body through unchanged", async () => {
    const body = JSON.stringify({
      error: {
        type: 'invalid_request',
        code: 'order_not_cancellable',
        message: 'Shipped',
        request_id: 'req_x',
      },
    });
    orders().behaviour = (_req, res) => {
      res.writeHead(409, { 'content-type': 'application/json', 'x-service-header': 'kept' });
      res.end(body);
    };
    const res = await request(h.url).post('/v1/orders/o_1/cancel').set('Authorization', `Bearer ${token}`);
    expect(res.status).toBe(409);
    expect(res.text).toBe(body);
    expect(res.headers['x-service-header']).toBe('kept');
    expect(res.headers['x-ratelimit-limit']).toBe('120');
  });
});

describe('Expect: 100-continue (RFC 9110 10.1.1)', () => {
  /** A POST that sends its body only after `100 Continue`, as curl does for larger bodies. */
  function postExpectingContinue(
    authorization: string,
    body: string,
    declaredLength = Buffer.byteLength(body),
  ): Promise<{ continued: boolean; status: number; body: string }> {
    return new Promise((resolve, reject) => {
      let continued = false;
      const req = http.request(`${h.url}/v1/orders`, {
        method: 'POST',
        headers: {
          authorization,
          'content-type': 'application/json',
          'content-length': declaredLength,
          expect: '100-continue',
        },
      });
      req.on('continue', () => {
        continued = true;
        req.end(body);
      });
      req.on('response', (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (d: string) => (text += d));
        res.on('end', () => resolve({ continued, status: res.statusCode ?? 0, body: text }));
      });
      req.on('error', reject);
      req.flushHeaders();
    });
  }

  it('admits the request before it asks for the body, then forwards it', async () => {
    const answer = await postExpectingContinue(`Bearer ${token}`, '{"items":[]}');
    expect(answer).toMatchObject({ continued: true, status: 200 });
    expect(orders().last?.body.toString()).toBe('{"items":[]}');
    expect(orders().last?.headers.expect).toBeUndefined();
  });

  it('refuses a bad token before the client sends its body (no 100 Continue)', async () => {
    const answer = await postExpectingContinue('Bearer not-a-token', '{"items":[]}');
    expect(answer.continued).toBe(false);
    expect(answer.status).toBe(401);
    expect(JSON.parse(answer.body).error.code).toBe('invalid_token');
    expect(orders().received).toHaveLength(0);
  });

  it('refuses a declared body over the limit before the client sends it', async () => {
    const answer = await postExpectingContinue(`Bearer ${token}`, '', 65_537);
    expect(answer.continued).toBe(false);
    expect(answer.status).toBe(413);
    expect(orders().received).toHaveLength(0);
  });
});

describe('connections', () => {
  it("keeps the client's connection open across forwarded requests (keep-alive)", async () => {
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const ports: number[] = [];
    try {
      for (let i = 0; i < 3; i++) {
        const req = http.get(new URL('/v1/orders', h.url), {
          agent,
          headers: { authorization: `Bearer ${token}` },
        });
        const [res] = (await once(req, 'response')) as [http.IncomingMessage];
        ports.push(req.socket?.localPort ?? -1);
        res.resume();
        await once(res, 'end');
        expect(res.statusCode).toBe(200);
        expect(res.headers.connection).toBe('keep-alive');
      }
    } finally {
      agent.destroy();
    }
    expect(new Set(ports).size).toBe(1);
  });

  it('reuses its connections to the service (keep-alive pool)', async () => {
    for (let i = 0; i < 3; i++) {
      await request(h.url).get('/v1/orders').set('Authorization', `Bearer ${token}`).expect(200);
    }
    expect(orders().received).toHaveLength(3);
    expect(orders().connections.size).toBe(1);
  });
});

describe('when the service closes a pooled connection as it is reused', () => {
  // A service that answers the first request of each connection and drops the connection when a
  // second request arrives on it: the race of a keep-alive timeout, made deterministic.
  let server: http.Server;
  let url = '';
  const seen: { method: string; reused: boolean }[] = [];

  beforeAll(async () => {
    const served = new WeakSet<object>();
    server = http.createServer((req, res) => {
      const reused = served.has(req.socket);
      seen.push({ method: req.method ?? '', reused });
      if (reused) {
        req.socket.destroy();
        return;
      }
      served.add(req.socket);
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('retries a GET once on a fresh connection, but never a POST', async () => {
    const flaky = await startHarness({ issuer: h.issuer, env: { ORDERS_URL: url } });
    try {
      await request(flaky.url).get('/v1/orders').set('Authorization', `Bearer ${token}`).expect(200);
      await request(flaky.url).get('/v1/orders').set('Authorization', `Bearer ${token}`).expect(200);
      expect(seen.map((s) => s.reused)).toEqual([false, true, false]);

      const post = await request(flaky.url)
        .post('/v1/orders')
        .set('Authorization', `Bearer ${token}`)
        .set('Content-Type', 'application/json')
        .send('{"a":1}');
      expectApiError(post, 503, 'api_error', 'service_unavailable');
      expect(seen.slice(3)).toEqual([{ method: 'POST', reused: true }]);
    } finally {
      await flaky.stop();
    }
  });
});

describe('when the service fails', () => {
  it('answers 503 service_unavailable when nothing listens on the service port', async () => {
    const port = await closedPort();
    const down = await startHarness({ issuer: h.issuer, env: { ORDERS_URL: `http://127.0.0.1:${port}` } });
    try {
      const res = await request(down.url).get('/v1/orders').set('Authorization', `Bearer ${token}`);
      expectApiError(res, 503, 'api_error', 'service_unavailable');
      expect(res.headers['retry-after']).toBe('1');
      const post = await request(down.url)
        .post('/v1/orders')
        .set('Authorization', `Bearer ${token}`)
        .set('Content-Type', 'application/json')
        .send('{"a":1}');
      expectApiError(post, 503, 'api_error', 'service_unavailable');
    } finally {
      await down.stop();
    }
  });

  it('answers 504 upstream_timeout when the service is slower than UPSTREAM_TIMEOUT_MS, and promptly', async () => {
    orders().behaviour = (_req, res) => {
      setTimeout(() => res.end('{}'), 3000).unref();
    };
    const started = Date.now();
    const res = await request(h.url).get('/v1/orders').set('Authorization', `Bearer ${token}`);
    const elapsed = Date.now() - started;
    expectApiError(res, 504, 'api_error', 'upstream_timeout');
    // It may have been carried out: whether to send it again is the client's call, not a hint's.
    expect(res.headers['retry-after']).toBeUndefined();
    expect(elapsed).toBeGreaterThanOrEqual(290);
    expect(elapsed).toBeLessThan(2000);
  });

  it('cuts the response off when the service stalls mid-body, rather than hanging', async () => {
    orders().behaviour = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"partial":');
    };
    const req = http.get(new URL('/v1/orders', h.url), { headers: { authorization: `Bearer ${token}` } });
    const [res] = (await once(req, 'response')) as [http.IncomingMessage];
    expect(res.statusCode).toBe(200);
    res.resume();
    const [err] = (await once(res, 'error').catch((e: unknown) => [e])) as [Error];
    expect(err.message).toMatch(/aborted/);
  });

  it('answers a slow service within the timeout normally', async () => {
    orders().behaviour = (_req, res) => {
      setTimeout(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"late":true}'), 100);
    };
    const res = await request(h.url).get('/v1/orders').set('Authorization', `Bearer ${token}`).expect(200);
    expect(res.body).toEqual({ late: true });
  });
});
