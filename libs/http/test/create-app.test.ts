import request from 'supertest';
import type { AppError } from '@ordering/errors';
import {
  AuthenticationError,
  ConflictError,
  IdempotencyError,
  MissingFieldError,
  NotFoundError,
  RateLimitError,
  UnavailableError,
} from '@ordering/errors';
import { z } from 'zod';
import {
  assertEmptyBody,
  createApp,
  newRequestId,
  optionalBody,
  parseBody,
  type ReadinessCheck,
} from '../src';
import { captureLogs } from './log-capture';

function appWith(
  options: { readiness?: ReadinessCheck[]; bodyLimit?: string | false; readinessTimeoutMs?: number } = {},
) {
  const logs = captureLogs();
  const app = createApp({
    service: 'test-service',
    logger: logs.logger,
    ...options,
    routes: (app) => {
      app.post('/echo', (req, res) => {
        res.status(201).json({ received: req.body, request_id: req.id });
      });
      app.post('/raw-length', async (req, res) => {
        let bytes = 0;
        for await (const chunk of req) bytes += (chunk as Buffer).length;
        res.json({ parsed: req.body !== undefined, bytes });
      });
      app.get('/boom', () => {
        throw new Error('database password hunter2 leaked in message');
      });
      app.get('/boom-async', async () => {
        await Promise.resolve();
        throw new TypeError('cannot read properties of undefined');
      });
      app.get('/orders/:id', (req) => {
        throw new NotFoundError(`No such order: ${req.params.id}`, 'id');
      });
      app.get('/throws/:kind', (req) => {
        const errors: Record<string, AppError> = {
          missing: new MissingFieldError('items'),
          conflict: new ConflictError('order_not_cancellable', 'This order cannot be cancelled'),
          auth: new AuthenticationError(),
          rate: new RateLimitError(2.5),
          idem: new IdempotencyError('idempotency_key_reused', 'Keys are for one request body'),
          down: new UnavailableError(),
        };
        throw errors[req.params.kind as string];
      });
    },
  });
  return { app, logs };
}

const errorShape = (status: number, type: string, code: string) => ({ status, type, code });

describe('createApp: request ids', () => {
  it('generates a req_ id when the caller sends none, and reports it in the header and req.id', async () => {
    const { app } = appWith();
    const res = await request(app).post('/echo').send({ a: 1 }).expect(201);
    expect(res.headers['x-request-id']).toMatch(/^req_[A-Za-z0-9]{16}$/);
    expect(res.body).toEqual({ received: { a: 1 }, request_id: res.headers['x-request-id'] });
  });

  it('never repeats a generated id, across refills of the random pool', () => {
    const ids = Array.from({ length: 5000 }, () => newRequestId());
    for (const id of ids) expect(id).toMatch(/^req_[A-Za-z0-9]{16}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('passes a sane X-Request-Id through', async () => {
    const { app } = appWith();
    const id = 'gw-01HZX.abc:def_9';
    const res = await request(app).post('/echo').set('X-Request-Id', id).send({}).expect(201);
    expect(res.headers['x-request-id']).toBe(id);
    expect(res.body.request_id).toBe(id);
  });

  it.each([
    ['too long', 'a'.repeat(201)],
    ['with spaces', 'id with spaces'],
    ['with a header-injection attempt', 'abc\tdef'],
    ['with slashes', '../../etc'],
  ])('replaces an X-Request-Id %s with a generated one', async (_label, id) => {
    const { app } = appWith();
    const res = await request(app).post('/echo').set('X-Request-Id', id).send({}).expect(201);
    expect(res.headers['x-request-id']).toMatch(/^req_/);
  });

  it('keeps a 200-character id (the upper bound)', async () => {
    const { app } = appWith();
    const id = 'x'.repeat(200);
    const res = await request(app).get('/healthz').set('X-Request-Id', id).expect(200);
    expect(res.headers['x-request-id']).toBe(id);
  });

  it('writes an access log line carrying the request id and the service', async () => {
    const { app, logs } = appWith();
    const res = await request(app)
      .post('/echo')
      .set('Authorization', 'Bearer secret-token')
      .send({})
      .expect(201);
    const line = logs.lines().find((l) => l.request_id === res.headers['x-request-id']);
    expect(line).toMatchObject({
      service: 'test-service',
      level: 'info',
      msg: 'POST /echo 201',
      req: { method: 'POST', url: '/echo' },
      res: { statusCode: 201 },
    });
    expect(line?.responseTime).toEqual(expect.any(Number));
    expect(line).not.toHaveProperty('aborted');
    expect(logs.text()).not.toContain('secret-token');
  });

  it('logs the access line of a 4xx at warn and of a 5xx at error, with the query', async () => {
    const { app, logs } = appWith();
    await request(app).get('/orders/ord_9?expand=items').set('X-Request-Id', 'r-404').expect(404);
    await request(app).get('/boom').set('X-Request-Id', 'r-500').expect(500);
    const access = logs.lines().filter((l) => l.res !== undefined);
    expect(access).toEqual([
      expect.objectContaining({
        level: 'warn',
        request_id: 'r-404',
        msg: 'GET /orders/ord_9?expand=items 404',
      }),
      expect.objectContaining({ level: 'error', request_id: 'r-500', msg: 'GET /boom 500' }),
    ]);
  });

  it('never logs credentials a URL carries (an OAuth code, a token), only the rest of the query', async () => {
    const { app, logs } = appWith();
    await request(app).get('/callback?code=AUTHCODE-1&state=st-1').set('X-Request-Id', 'r-code').expect(404);
    await request(app)
      .get('/orders?limit=1&access_token=TOKEN-1&ID_TOKEN_HINT=TOKEN-2')
      .set('X-Request-Id', 'r-token')
      .expect(404);
    expect(logs.text()).not.toMatch(/AUTHCODE-1|TOKEN-1|TOKEN-2/);
    const access = logs.lines().filter((l) => l.res !== undefined);
    expect(access.map((l) => l.msg)).toEqual([
      'GET /callback?code=[redacted]&state=st-1 404',
      'GET /orders?limit=1&access_token=[redacted]&ID_TOKEN_HINT=[redacted] 404',
    ]);
    expect(access[0]).toMatchObject({ req: { url: '/callback?code=[redacted]&state=st-1' } });
  });

  it('writes no access line below the logger level, but still the 4xx at warn', async () => {
    const logs = captureLogs('test-service', 'warn');
    const app = createApp({
      service: 'test-service',
      logger: logs.logger,
      routes: (app) => app.get('/ok', (_req, res) => res.json({ ok: true })),
    });
    await request(app).get('/ok').expect(200);
    await request(app).get('/missing').set('X-Request-Id', 'r-miss').expect(404);
    expect(logs.lines().map((l) => l.msg)).toEqual(['GET /missing 404']);
  });

  it('gives routes req.log, whose lines carry the request id (one child per request)', async () => {
    const { logs } = appWith();
    const app = createApp({
      service: 'test-service',
      logger: logs.logger,
      routes: (app) =>
        app.get('/noted', (req, res) => {
          req.log.info({ step: 1 }, 'noted');
          req.log.info({ step: 2 }, 'noted');
          res.json({ same: req.log === req.log });
        }),
    });
    const res = await request(app).get('/noted').set('X-Request-Id', 'r-noted').expect(200);
    expect(res.body).toEqual({ same: true });
    expect(logs.lines().filter((l) => l.msg === 'noted')).toEqual([
      expect.objectContaining({ request_id: 'r-noted', step: 1, service: 'test-service' }),
      expect.objectContaining({ request_id: 'r-noted', step: 2, service: 'test-service' }),
    ]);
  });

  it('marks the access line of a request whose client went away before the answer', async () => {
    const logs = captureLogs();
    let entered: () => void = () => {};
    const inRoute = new Promise<void>((resolve) => (entered = resolve));
    const app = createApp({
      service: 'test-service',
      logger: logs.logger,
      routes: (app) =>
        app.get('/hang', (_req, res) => {
          entered();
          setTimeout(() => res.json({ late: true }), 200).unref();
        }),
    });
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const { port } = server.address() as { port: number };
      const controller = new AbortController();
      const call = fetch(`http://127.0.0.1:${port}/hang`, {
        headers: { 'X-Request-Id': 'r-gone' },
        signal: controller.signal,
      }).catch(() => undefined);
      await inRoute;
      controller.abort();
      await call;
      const deadline = Date.now() + 2000;
      while (!logs.lines().some((l) => l.request_id === 'r-gone') && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      expect(logs.lines().find((l) => l.request_id === 'r-gone')).toMatchObject({
        aborted: true,
        msg: 'GET /hang 200',
      });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('createApp: error bodies', () => {
  it('400 invalid_json for a body that is not JSON', async () => {
    const { app } = appWith();
    const res = await request(app)
      .post('/echo')
      .set('Content-Type', 'application/json')
      .set('X-Request-Id', 'r-1')
      .send('{"items": [1,')
      .expect(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      error: {
        type: 'invalid_request',
        code: 'invalid_json',
        message: 'The request body is not valid JSON',
        request_id: 'r-1',
      },
    });
  });

  describe('the media type and the JSON type of a body', () => {
    function bodyApp(otherMediaTypes?: 'refuse' | 'pass') {
      return createApp({
        service: 'test-service',
        logger: captureLogs().logger,
        ...(otherMediaTypes ? { otherMediaTypes } : {}),
        routes: (app) => {
          app.post('/orders', (req, res) => {
            res.status(201).json(parseBody(z.object({ n: z.number() }).strict(), req.body));
          });
          app.post('/orders/:id/cancel', (req, res) => {
            res.json(parseBody(z.object({ reason: z.string().optional() }).strict(), optionalBody(req)));
          });
          app.post('/hooks/:id/test', (req, res) => {
            assertEmptyBody(req);
            res.status(202).json({ queued: true });
          });
          app.get('/orders/:id', (req, res) => {
            res.json({ id: req.params.id, body: req.body ?? null });
          });
          app.delete('/orders/:id', (req, res) => {
            res.json({ deleted: true, body: req.body ?? null });
          });
        },
      });
    }

    function expectError(res: request.Response, status: number, code: string): void {
      expect({ status: res.status, error: res.body.error }).toEqual({
        status,
        error: expect.objectContaining({ type: 'invalid_request', code }),
      });
    }

    it.each(['null', '1', '"x"', 'true', '[]'])(
      'a JSON body of the wrong type (%s) is 422 invalid_value, not 400 invalid_json',
      async (body) => {
        for (const path of ['/orders', '/orders/o1/cancel']) {
          const res = await request(bodyApp()).post(path).set('Content-Type', 'application/json').send(body);
          expectError(res, 422, 'invalid_value');
          expect(res.body.error.message).toBe('The request body must be a JSON object');
        }
      },
    );

    it.each([
      ['text/plain', 'text/plain'],
      ["curl's default form type", 'application/x-www-form-urlencoded'],
      ['none', undefined],
    ])('a JSON object sent as %s is 415 unsupported_media_type naming application/json', async (_l, type) => {
      for (const path of ['/orders', '/orders/o1/cancel']) {
        const call = request(bodyApp()).post(path);
        // supertest names a type for a string body; a Buffer body goes without one.
        const res = type
          ? await call.set('Content-Type', type).send('{"n":1}')
          : await call.send(Buffer.from('{"n":1}'));
        if (!type) expect(res.request.getHeader('Content-Type')).toBeUndefined();
        expectError(res, 415, 'unsupported_media_type');
        expect(res.body.error.message).toContain('Content-Type: application/json');
      }
    });

    it.each(['application/json', 'application/json; charset=utf-8', 'application/merge-patch+json'])(
      'reads a body sent as %s',
      async (type) => {
        const res = await request(bodyApp()).post('/orders').set('Content-Type', type).send('{"n":1}');
        expect({ status: res.status, body: res.body }).toEqual({ status: 201, body: { n: 1 } });
      },
    );

    it('keeps the answer of a POST without a body, whatever its Content-Type', async () => {
      for (const type of ['text/plain', 'application/x-www-form-urlencoded']) {
        const cancel = await request(bodyApp()).post('/orders/o1/cancel').set('Content-Type', type);
        expect({ status: cancel.status, body: cancel.body }).toEqual({ status: 200, body: {} });
      }
      expect((await request(bodyApp()).post('/orders/o1/cancel')).status).toBe(200);
      expectError(await request(bodyApp()).post('/orders'), 422, 'invalid_value');
    });

    it('an action without parameters takes no body or {}, and refuses a field in it as unknown_field', async () => {
      expect((await request(bodyApp()).post('/hooks/h1/test')).status).toBe(202);
      const empty = await request(bodyApp())
        .post('/hooks/h1/test')
        .set('Content-Type', 'application/json')
        .send('{}');
      expect(empty.status).toBe(202);
      const field = await request(bodyApp())
        .post('/hooks/h1/test')
        .set('Content-Type', 'application/json')
        .send('{"expires_in": 5}');
      expectError(field, 422, 'unknown_field');
      expect(field.body.error.param).toBe('expires_in');
      const list = await request(bodyApp())
        .post('/hooks/h1/test')
        .set('Content-Type', 'application/json')
        .send('[]');
      expectError(list, 422, 'invalid_value');
    });

    it('does not read a body sent with GET or DELETE (no route takes one): not even bytes that are not JSON', async () => {
      for (const method of ['get', 'delete'] as const) {
        const agent = request(bodyApp());
        const call = method === 'get' ? agent.get('/orders/o1') : agent.delete('/orders/o1');
        const res = await call.set('Content-Type', 'application/json').send('{"items": [1,');
        expect({ method, status: res.status, body: res.body.body }).toEqual({
          method,
          status: 200,
          body: null,
        });
      }
    });

    it('otherMediaTypes pass leaves a form body to the route (an app that reads forms)', async () => {
      const res = await request(bodyApp('pass'))
        .post('/orders/o1/cancel')
        .set('Content-Type', 'application/x-www-form-urlencoded')
        .send('reason=x');
      expect(res.status).toBe(200);
    });
  });

  it('413 body_too_large past the body limit (default 1mb)', async () => {
    const { app } = appWith();
    const big = JSON.stringify({ blob: 'x'.repeat(1024 * 1024) });
    const res = await request(app)
      .post('/echo')
      .set('Content-Type', 'application/json')
      .send(big)
      .expect(413);
    expect(res.body.error).toEqual({
      type: 'invalid_request',
      code: 'body_too_large',
      message: 'The request body is larger than the limit of 1048576 bytes',
      request_id: res.headers['x-request-id'],
    });
  });

  it('honours a smaller bodyLimit, and accepts a body just under it', async () => {
    const { app } = appWith({ bodyLimit: '100b' });
    await request(app)
      .post('/echo')
      .send({ s: 'x'.repeat(80) })
      .expect(201);
    const res = await request(app)
      .post('/echo')
      .send({ s: 'x'.repeat(100) })
      .expect(413);
    expect(res.body.error.code).toBe('body_too_large');
  });

  it('bodyLimit false leaves the body unread for the route (the gateway streams it on)', async () => {
    const { app } = appWith({ bodyLimit: false });
    const body = JSON.stringify({ blob: 'x'.repeat(2 * 1024 * 1024) });
    const res = await request(app)
      .post('/raw-length')
      .set('Content-Type', 'application/json')
      .send(body)
      .expect(200);
    expect(res.body).toEqual({ parsed: false, bytes: Buffer.byteLength(body) });
  });

  it('404 resource_missing for an unknown path, echoing the request id', async () => {
    const { app } = appWith();
    const res = await request(app).get('/v1/nothing-here?x=1').expect(404);
    expect(res.body).toEqual({
      error: {
        type: 'invalid_request',
        code: 'resource_missing',
        message: 'Unrecognized request URL (GET /v1/nothing-here)',
        request_id: res.headers['x-request-id'],
      },
    });
  });

  it('404 for a known path with a method it does not serve', async () => {
    const { app } = appWith();
    const res = await request(app).delete('/echo').expect(404);
    expect(res.body.error.code).toBe('resource_missing');
  });

  it('404 (not 500) for a path parameter that cannot be decoded', async () => {
    const { app } = appWith();
    const res = await request(app).get('/orders/%E0%A4%A').expect(404);
    expect(res.body.error).toMatchObject({ type: 'invalid_request', code: 'resource_missing' });
  });

  it('500 internal_error for a bug: no message, no stack in the body; the stack is logged', async () => {
    const { app, logs } = appWith();
    const res = await request(app).get('/boom').set('X-Request-Id', 'bug-1').expect(500);
    expect(res.body).toEqual({
      error: {
        type: 'api_error',
        code: 'internal_error',
        message: 'An internal error occurred; it has been logged',
        request_id: 'bug-1',
      },
    });
    expect(JSON.stringify(res.body)).not.toMatch(/hunter2|at .*\.ts|stack/);
    const logged = logs.lines().find((l) => l.msg === 'request failed');
    expect(logged).toMatchObject({ level: 'error', request_id: 'bug-1', service: 'test-service' });
    expect((logged?.err as { stack: string }).stack).toContain('create-app.test.ts');
  });

  it('500 for a rejected promise of an async handler (Express 5)', async () => {
    const { app } = appWith();
    const res = await request(app).get('/boom-async').expect(500);
    expect(res.body.error.code).toBe('internal_error');
    expect(JSON.stringify(res.body)).not.toContain('undefined');
  });

  it('renders an AppError with its param', async () => {
    const { app } = appWith();
    const res = await request(app).get('/orders/ord_404').expect(404);
    expect(res.body.error).toEqual({
      type: 'invalid_request',
      code: 'resource_missing',
      message: 'No such order: ord_404',
      param: 'id',
      request_id: res.headers['x-request-id'],
    });
  });

  it.each([
    ['missing', errorShape(422, 'invalid_request', 'missing_required_field'), {}],
    ['conflict', errorShape(409, 'invalid_request', 'order_not_cancellable'), {}],
    [
      'auth',
      errorShape(401, 'authentication_error', 'invalid_token'),
      { 'www-authenticate': 'Bearer error="invalid_token"' },
    ],
    ['rate', errorShape(429, 'rate_limit_error', 'rate_limit_exceeded'), { 'retry-after': '3' }],
    ['idem', errorShape(422, 'idempotency_error', 'idempotency_key_reused'), {}],
    ['down', errorShape(503, 'api_error', 'service_unavailable'), {}],
  ])('renders %s with its status, type, code and headers', async (kind, shape, headers) => {
    const { app } = appWith();
    const res = await request(app).get(`/throws/${kind}`).expect(shape.status);
    expect(res.body.error).toMatchObject({
      type: shape.type,
      code: shape.code,
      request_id: res.headers['x-request-id'],
    });
    expect(res.headers).toMatchObject(headers);
    expect(res.body.error).not.toHaveProperty('stack');
  });
});

describe('createApp: health', () => {
  it('GET /healthz answers 200 {status: ok}', async () => {
    const { app } = appWith();
    await request(app).get('/healthz').expect(200, { status: 'ok' });
  });

  it('GET /readyz answers 200 when every check passes', async () => {
    const { app } = appWith({
      readiness: [
        { name: 'postgres', check: async () => {} },
        { name: 'kafka', check: async () => {} },
      ],
    });
    await request(app)
      .get('/readyz')
      .expect(200, { status: 'ready', checks: { postgres: 'ok', kafka: 'ok' } });
  });

  it('GET /readyz answers 503 naming the failing and the hanging check', async () => {
    const { app, logs } = appWith({
      readinessTimeoutMs: 50,
      readiness: [
        { name: 'postgres', check: async () => {} },
        { name: 'kafka', check: () => Promise.reject(new Error('broker 127.0.0.1:9 unreachable')) },
        { name: 'redis', check: () => new Promise<void>(() => {}) },
        {
          name: 'sync-thrower',
          check: () => {
            throw new Error('thrown before any promise');
          },
        },
      ],
    });
    const started = Date.now();
    const res = await request(app).get('/readyz').expect(503);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(res.body).toEqual({
      status: 'not_ready',
      checks: {
        postgres: 'ok',
        kafka: 'broker 127.0.0.1:9 unreachable',
        redis: 'timed out after 50 ms',
        'sync-thrower': 'thrown before any promise',
      },
    });
    // A failing probe is logged even though passing probes are not.
    expect(logs.lines().some((l) => l.msg === 'GET /readyz 503')).toBe(true);
  });

  it('GET /readyz stays ready when a check resolves with a degraded note, and shows the note', async () => {
    const { app } = appWith({
      readiness: [
        { name: 'postgres', check: async () => {} },
        { name: 'redis', check: async () => 'degraded: rate limits enforced per replica' },
      ],
    });
    await request(app)
      .get('/readyz')
      .expect(200, {
        status: 'ready',
        checks: { postgres: 'ok', redis: 'degraded: rate limits enforced per replica' },
      });
  });

  it('does not log passing probes', async () => {
    const { app, logs } = appWith();
    await request(app).get('/healthz').expect(200);
    await request(app).get('/readyz').expect(200);
    expect(logs.lines().filter((l) => typeof l.msg === 'string' && l.msg.includes('z 200'))).toEqual([]);
  });
});
