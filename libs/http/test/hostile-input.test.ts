// The defences every app of createApp / httpEntryPoint inherits (issue 7): unsafe text (NUL, lone
// surrogates) and deep nesting refused with 422 invalid_value naming the place, unknown body fields
// with 422 unknown_field, protocol errors and slow clients answered in the JSON error shape.
import net from 'node:net';
import request from 'supertest';
import { CreateOrderRequest, UpdateUserRequest } from '@ordering/contracts';
import {
  createApp,
  decodeCursor,
  encodeCursor,
  findUnsafeInput,
  httpEntryPoint,
  isUnsafeText,
  optionalQuery,
  parseBody,
  pathParam,
  type HttpEntryPoint,
} from '../src';
import { captureLogs } from './log-capture';

function app() {
  const logs = captureLogs();
  return createApp({
    service: 'test-service',
    logger: logs.logger,
    routes: (a) => {
      a.post('/orders', (req, res) => {
        res.status(201).json(parseBody(CreateOrderRequest, req.body));
      });
      a.patch('/users/:login', (req, res) => {
        res.json({ login: pathParam(req, 'login'), changes: parseBody(UpdateUserRequest, req.body) });
      });
      a.get('/users/:login', (req, res) => {
        res.json({ login: pathParam(req, 'login'), q: optionalQuery(req.query, 'q') ?? null });
      });
      a.get('/list', (req, res) => {
        res.json({ cursor: decodeCursor(String(req.query.starting_after)) });
      });
    },
  });
}

const order = { cust_id: 'ACME', shipping_address_id: 'addr_1', items: [{ item_code: 'PEN', quantity: 1 }] };

function expectError(
  res: request.Response,
  status: number,
  code: string,
  param?: string,
  type = 'invalid_request',
): void {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({
    error: {
      type,
      code,
      message: expect.any(String),
      ...(param === undefined ? {} : { param }),
      request_id: res.headers['x-request-id'],
    },
  });
}

describe('unsafe text', () => {
  it('is a NUL or an unpaired surrogate; paired surrogates (emoji) are fine', () => {
    expect(isUnsafeText('a\u0000b')).toBe(true);
    expect(isUnsafeText('\uD800')).toBe(true);
    expect(isUnsafeText('x\uDC00')).toBe(true);
    expect(isUnsafeText('\uDC00\uD800')).toBe(true);
    expect(isUnsafeText('ok 😀 é')).toBe(false);
    expect(findUnsafeInput({ a: [{ b: 'ok' }, { c: '\u0000' }] })).toEqual({
      path: 'a[1].c',
      problem: 'unsafe_text',
    });
  });

  it('is found iteratively in a nesting far deeper than the stack would allow', () => {
    let deep: unknown = 'x';
    for (let i = 0; i < 200_000; i++) deep = { '': deep };
    expect(findUnsafeInput(deep)?.problem).toBe('too_deep');
  });
});

describe('JSON bodies of every createApp app', () => {
  it('a NUL in a nested string is 422 invalid_value naming it, before any route reads it', async () => {
    const res = await request(app())
      .post('/orders')
      .send({ ...order, items: [order.items[0], { item_code: 'P\u0000N', quantity: 1 }] });
    expectError(res, 422, 'invalid_value', 'items[1].item_code');
  });

  it('a lone surrogate sent as a JSON escape is refused, not stored as U+FFFD', async () => {
    const res = await request(app())
      .post('/orders')
      .set('Content-Type', 'application/json')
      .send('{"cust_id":"\\ud800","shipping_address_id":"a","items":[]}');
    expectError(res, 422, 'invalid_value', 'cust_id');
  });

  it('a NUL in an object key is refused too', async () => {
    const res = await request(app())
      .post('/orders')
      .set('Content-Type', 'application/json')
      .send('{"cust\\u0000id":"A"}');
    expectError(res, 422, 'invalid_value', 'cust?id');
  });

  it('bytes that are not UTF-8 are 400 invalid_json', async () => {
    const res = await request(app())
      .post('/orders')
      .set('Content-Type', 'application/json')
      .serialize((body: unknown) => body as string)
      .send(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]));
    expectError(res, 400, 'invalid_json');
  });

  it('a compressed body that does not decompress is 400 invalid_json (a code decisions.md lists)', async () => {
    const res = await request(app())
      .post('/orders')
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', 'gzip')
      .serialize((body: unknown) => body as string)
      .send(Buffer.from('not gzip at all'));
    expectError(res, 400, 'invalid_json');
    expect(res.body.error.message).toMatch(/could not be read/);
  });

  it('a body nested deeper than 32 levels is 422 invalid_value', async () => {
    const body = `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`;
    const res = await request(app()).post('/orders').set('Content-Type', 'application/json').send(body);
    expectError(res, 422, 'invalid_value', Array(32).fill('a').join('.'));
  });
});

describe('unknown fields in a request body', () => {
  it('are 422 unknown_field naming the field instead of being dropped', async () => {
    const res = await request(app()).patch('/users/ann').send({ status: 'deactivated' });
    expectError(res, 422, 'unknown_field', 'status');
  });

  it('name the nested place', async () => {
    const res = await request(app())
      .post('/orders')
      .send({ ...order, items: [order.items[0], order.items[0], { ...order.items[0], foo: 1 }] });
    expectError(res, 422, 'unknown_field', 'items[2].foo');
  });

  it('come before other problems (a misspelt field is most likely the cause)', async () => {
    const res = await request(app()).post('/orders').send({ cust_id: 'ACME', shiping_address_id: 'a' });
    expectError(res, 422, 'unknown_field', 'shiping_address_id');
  });

  it('known fields still pass, and a missing one is missing_required_field', async () => {
    expect((await request(app()).patch('/users/ann').send({ name: 'Ann' })).status).toBe(200);
    const res = await request(app()).post('/orders').send({ cust_id: 'ACME', items: order.items });
    expectError(res, 422, 'missing_required_field', 'shipping_address_id');
  });
});

describe('path parameters, query values and cursors', () => {
  it('a NUL in a path parameter is 422 invalid_value naming it', async () => {
    expectError(await request(app()).get('/users/a%00b'), 422, 'invalid_value', 'login');
  });

  it('a NUL in any query value is 422 invalid_value naming it, whether the route reads it or not', async () => {
    expectError(await request(app()).get('/users/ann?q=a%00'), 422, 'invalid_value', 'q');
    expectError(await request(app()).get('/users/ann?unread=%00'), 422, 'invalid_value', 'unread');
    expectError(await request(app()).get('/users/ann?x%00=1'), 422, 'invalid_value', 'x?');
  });

  it('a query name or value whose percent-escapes are not UTF-8 is 422 invalid_value naming it', async () => {
    expectError(await request(app()).get('/users/ann?q=%ff'), 422, 'invalid_value', 'q');
    expectError(
      await request(app()).get('/users/ann?q=ok&unread=a%ED%A0%80'),
      422,
      'invalid_value',
      'unread',
    );
    expectError(await request(app()).get('/users/ann?%ff=1'), 422, 'invalid_value', '%ff');
    // A name with a `%` that starts no escape, and a value that is not UTF-8: still a 422 naming it.
    expectError(await request(app()).get('/users/ann?50%25%=%ff'), 422, 'invalid_value', '50%%');
    expectError(await request(app()).get('/users/ann?a%zz=%ff'), 422, 'invalid_value', 'a%zz');
    // UTF-8 escapes, `+` and a `%` that starts no escape are text as ever.
    const res = await request(app()).get('/users/ann?q=caf%C3%A9+50%').expect(200);
    expect(res.body.q).toBe('café 50%');
  });

  it('a forged cursor with unsafe text is 422 invalid_value, param starting_after', async () => {
    const forged = encodeCursor({ login: 'a\u0000' });
    expectError(
      await request(app()).get(`/list?starting_after=${forged}`),
      422,
      'invalid_value',
      'starting_after',
    );
    const notUtf8 = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xed, 0xa0, 0x80, 0x22, 0x7d]).toString(
      'base64url',
    );
    expectError(
      await request(app()).get(`/list?starting_after=${notUtf8}`),
      422,
      'invalid_value',
      'starting_after',
    );
    expect((await request(app()).get(`/list?starting_after=${encodeCursor({ login: 'ann' })}`)).status).toBe(
      200,
    );
  });
});

describe('the HTTP entry point', () => {
  let ep: HttpEntryPoint;
  let port: number;

  beforeAll(async () => {
    const logs = captureLogs();
    const slowApp = createApp({
      service: 'test-service',
      logger: logs.logger,
      // `/early` takes a text body it never reads; refused for its media type, it would not reach it.
      otherMediaTypes: 'pass',
      routes: (a) => {
        // Answers before reading the body, as the gateway does after an upstream timeout.
        a.post('/early', (_req, res) => {
          res.status(504).json({ answered: true });
        });
        a.post('/echo', (req, res) => {
          res.json(req.body);
        });
      },
    });
    ep = httpEntryPoint(slowApp, {
      port: 0,
      host: '127.0.0.1',
      logger: logs.logger,
      headersTimeoutMs: 500,
      requestTimeoutMs: 1000,
    });
    await ep.start();
    port = Number(new URL(ep.url()).port);
  });
  afterAll(() => ep.stop());

  /** Writes `chunks` (optionally spaced out), collects everything until the server closes. */
  function exchange(chunks: string[], options: { gapMs?: number; maxMs?: number } = {}) {
    return new Promise<{ text: string; closedAfterMs: number }>((resolve, reject) => {
      const started = Date.now();
      const socket = net.connect(port, '127.0.0.1');
      let text = '';
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => (text += d));
      socket.on('error', () => {});
      socket.on('close', () => resolve({ text, closedAfterMs: Date.now() - started }));
      const guard = setTimeout(() => {
        socket.destroy();
        reject(new Error(`connection still open after ${options.maxMs ?? 5000} ms; got: ${text}`));
      }, options.maxMs ?? 5000);
      socket.on('close', () => clearTimeout(guard));
      let i = 0;
      const next = () => {
        if (i >= chunks.length || socket.destroyed) return;
        socket.write(chunks[i++]!);
        if (options.gapMs) setTimeout(next, options.gapMs);
        else next();
      };
      socket.on('connect', next);
    });
  }

  function parse(text: string): { status: number; headers: string; body: unknown } {
    const [head, body] = text.split('\r\n\r\n');
    return { status: Number(head!.split(' ')[1]), headers: head!, body: JSON.parse(body!) };
  }

  function expectRaw(text: string, status: number, code: string): void {
    const { status: actual, headers, body } = parse(text);
    expect(actual).toBe(status);
    const id = /x-request-id: (\S+)/i.exec(headers)?.[1];
    expect(id).toMatch(/^req_/);
    expect(body).toEqual({
      error: { type: 'invalid_request', code, message: expect.any(String), request_id: id },
    });
  }

  it('answers malformed HTTP with 400 in the JSON error shape and a request id', async () => {
    const { text } = await exchange(['GET / HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n']);
    expectRaw(text, 400, 'malformed_request');
  });

  it('answers oversized headers with 431 in the JSON error shape', async () => {
    const { text } = await exchange([`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]);
    expectRaw(text, 431, 'headers_too_large');
  });

  it('answers an unsupported Expect with 417 in the JSON error shape', async () => {
    const { text } = await exchange([
      'GET /healthz HTTP/1.1\r\nHost: x\r\nExpect: teapot\r\nConnection: close\r\n\r\n',
    ]);
    expectRaw(text, 417, 'expectation_failed');
  });

  it('answers CONNECT (no API has a tunnel) with 400 in the JSON error shape and closes the connection', async () => {
    const { text } = await exchange(['CONNECT 127.0.0.1:5432 HTTP/1.1\r\nHost: 127.0.0.1:5432\r\n\r\n']);
    expectRaw(text, 400, 'malformed_request');
  });

  it('answers an HTTP/1.1 request without Host with 400 in the JSON error shape; HTTP/1.0 needs none', async () => {
    const { text } = await exchange(['GET /healthz HTTP/1.1\r\n\r\n']);
    expectRaw(text, 400, 'malformed_request');
    const old = await exchange(['GET /healthz HTTP/1.0\r\n\r\n']);
    expect(old.text).toMatch(/^HTTP\/1.1 200 /);
  });

  it('answers a request with more than one Host with 400 in the JSON error shape (RFC 9112 3.2)', async () => {
    const { text } = await exchange(['GET /healthz HTTP/1.1\r\nHost: x\r\nhost: y\r\n\r\n']);
    expectRaw(text, 400, 'malformed_request');
    expect(text).toContain('one Host header, not several');
    const once = await exchange(['GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n']);
    expect(once.text).toMatch(/^HTTP\/1.1 200 /);
  });

  it.each(['HTTP/2.0', 'HTTP/0.9'])(
    'answers a %s request line with 505 in the JSON error shape',
    async (version) => {
      const { text } = await exchange([`GET /healthz ${version}\r\nHost: x\r\n\r\n`]);
      expectRaw(text, 505, 'http_version_not_supported');
    },
  );

  it('answers a request target with a fragment with 400 in the JSON error shape (RFC 9112 3.2)', async () => {
    const { text } = await exchange(['GET /healthz#top HTTP/1.1\r\nHost: x\r\n\r\n']);
    expectRaw(text, 400, 'malformed_request');
    expect(text).toContain('fragment');
  });

  it('answers headers trickled past the deadline with 408 and closes the connection', async () => {
    const { text, closedAfterMs } = await exchange(
      ['GET /healthz HTTP/1.1\r\n', 'Host: x\r\n', 'X-A: 1\r\n', 'X-B: 2\r\n', 'X-C: 3\r\n', 'X-D: 4\r\n'],
      { gapMs: 300, maxMs: 4000 },
    );
    expectRaw(text, 408, 'request_timeout');
    expect(closedAfterMs).toBeLessThan(4000);
  });

  it('answers a body trickled past the request deadline with 408 and closes the connection', async () => {
    const head =
      'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{';
    const { text, closedAfterMs } = await exchange([head, ...Array.from({ length: 20 }, () => ' ')], {
      gapMs: 200,
      maxMs: 4000,
    });
    expectRaw(text, 408, 'request_timeout');
    expect(closedAfterMs).toBeLessThan(4000);
  });

  it('closes the connection after answering a request whose body is still being trickled', async () => {
    const head = 'POST /early HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\n';
    const { text, closedAfterMs } = await exchange([head, 'a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'], {
      gapMs: 200,
      maxMs: 4000,
    });
    expect(text).toMatch(/^HTTP\/1.1 504/);
    expect(closedAfterMs).toBeLessThan(4000);
  });
});

describe('the last line of defence', () => {
  it("PostgreSQL's refusal of a NUL that slipped past every check is 422 invalid_value, not a 500", async () => {
    // The real errors of the database, as the pg driver raises them.
    const { Client } = await import('pg');
    const client = new Client({ connectionString: 'postgres://postgres@127.0.0.1:5432/postgres' });
    await client.connect();
    const refusals: unknown[] = [];
    try {
      for (const [sql, value] of [
        ['select $1::text', 'a\u0000b'],
        ['select $1::jsonb', JSON.stringify({ a: '\u0000' })],
      ] as const) {
        await client.query(sql, [value]).catch((err: unknown) => refusals.push(err));
      }
    } finally {
      await client.end();
    }
    expect(refusals).toHaveLength(2);
    const logs = captureLogs();
    const leaky = createApp({
      service: 'test-service',
      logger: logs.logger,
      routes: (a) => {
        a.get('/leak/:i', (req) => {
          throw refusals[Number(req.params.i)];
        });
      },
    });
    for (const i of [0, 1]) expectError(await request(leaky).get(`/leak/${i}`), 422, 'invalid_value');
  });
});
