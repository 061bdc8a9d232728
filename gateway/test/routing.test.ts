import http from 'node:http';
import request from 'supertest';
import { ROUTES, knownQueryParameters } from '../src';
import { expectApiError } from './support/api-assertions';
import { type Harness, startHarness } from './support/gateway-harness';

let h: Harness;
let admin: string;

beforeAll(async () => {
  h = await startHarness({ without: ['webhooks'] });
  admin = h.issuer.mint({ scope: 'admin:all' });
});
afterAll(() => h.stop());
beforeEach(() => Object.values(h.upstreams).forEach((u) => u.reset()));

/** The path with every `{param}` filled in. */
const concrete = (path: string) => path.replace(/\{([^}]+)\}/g, (_m, name: string) => `${name}_1`);

describe('routing by the route table', () => {
  const upstreamRoutes = ROUTES.filter((r) => r.service !== 'gateway' && r.service !== 'webhooks');

  it.each(upstreamRoutes.map((r) => [r.method, r.path, r.service, r] as const))(
    '%s %s reaches the %s service with its method, path and query unchanged',
    async (method, path, service, route) => {
      // The query parameters it takes, each with a value the gateway forwards as it came.
      const query = [...knownQueryParameters(route)].map((name) => `${name}=a%20b`).join('&');
      const url = query ? `${concrete(path)}?${query}` : concrete(path);
      const verb = method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete';
      const res = await request(h.url)[verb](url).set('Authorization', `Bearer ${admin}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ service, method, url });
      const others = Object.values(h.upstreams).filter((u) => u.name !== service);
      expect(others.every((u) => u.received.length === 0)).toBe(true);
    },
  );

  it('routes approval chains of a customer to the approvals service, not to customers', async () => {
    const res = await request(h.url)
      .get('/v1/customers/ACME/approval_chain')
      .set('Authorization', `Bearer ${admin}`)
      .expect(200);
    expect(res.body.service).toBe('approvals');
  });

  it('answers 404 resource_missing for an unknown path, before asking for a token', async () => {
    for (const path of ['/v1/nope', '/v1/orders/o_1/ship', '/v2/orders', '/internal/admin', '/v1/orders/']) {
      const res = await request(h.url).get(path);
      expectApiError(res, 404, 'invalid_request', 'resource_missing');
    }
    expect(Object.values(h.upstreams).every((u) => u.received.length === 0)).toBe(true);
  });

  it('never forwards a path parameter that could climb out of its segment', async () => {
    for (const path of [
      '/v1/orders/..',
      '/v1/orders/%2e%2e',
      '/v1/orders/a%2Fb',
      '/v1/orders/..%2F..%2Finternal',
    ]) {
      const res = await request(h.url).get(path).set('Authorization', `Bearer ${admin}`);
      expectApiError(res, 404, 'invalid_request', 'resource_missing');
    }
    expect(h.upstreams.orders.received).toHaveLength(0);
  });

  it('never forwards a query name or value that is not UTF-8 once decoded: 422 naming it', async () => {
    for (const [query, param] of [
      ['cust_id=%ff', 'cust_id'],
      ['limit=1&cust_id=%ED%A0%80', 'cust_id'],
      ['%ff=1', '%ff'],
      ['cust_id=%00', 'cust_id'],
    ] as const) {
      const res = await request(h.url).get(`/v1/orders?${query}`).set('Authorization', `Bearer ${admin}`);
      expectApiError(res, 422, 'invalid_request', 'invalid_value');
      expect(res.body.error.param).toBe(param);
    }
    expect(h.upstreams.orders.received).toHaveLength(0);
  });

  it('refuses a query parameter the operation does not take: 422 unknown_field naming it, nothing forwarded', async () => {
    // A misspelt filter must not read as no filter: `?stauts=approved` would list every order.
    for (const [path, query, param] of [
      ['/v1/orders', 'stauts=approved', 'stauts'],
      ['/v1/orders', 'limit=5&created_since=2026-11-22', 'created_since'],
      ['/v1/orders/o_1', 'limit=5', 'limit'],
      ['/v1/catalog/items', 'cust_id=ACME&category=furniture', 'category'],
      ['/v1/customers', 'cust_id=ACME', 'cust_id'],
      ['/v1/approvals', 'approver=adam&state=approved', 'state'],
    ] as const) {
      const res = await request(h.url).get(`${path}?${query}`).set('Authorization', `Bearer ${admin}`);
      expectApiError(res, 422, 'invalid_request', 'unknown_field');
      expect(res.body.error.param).toBe(param);
      expect(res.body.error.message).toContain(`Unknown query parameter: ${param}`);
    }
    const post = await request(h.url)
      .post('/v1/orders?dry_run=true')
      .set('Authorization', `Bearer ${admin}`)
      .send({});
    expectApiError(post, 422, 'invalid_request', 'unknown_field');
    expect(post.body.error.param).toBe('dry_run');
    expect(Object.values(h.upstreams).every((u) => u.received.length === 0)).toBe(true);
  });

  it('asks for the token and the scope before it looks at the query', async () => {
    expectApiError(
      await request(h.url).get('/v1/orders?stauts=x'),
      401,
      'authentication_error',
      'invalid_token',
    );
    const reader = h.issuer.mint({ scope: 'catalog:read' });
    const res = await request(h.url).get('/v1/orders?stauts=x').set('Authorization', `Bearer ${reader}`);
    expectApiError(res, 403, 'permission_error', 'insufficient_scope');
  });

  it('answers 405 method_not_allowed with Allow for a known path and a method it lacks', async () => {
    const res = await request(h.url).delete('/v1/orders/o_1').set('Authorization', `Bearer ${admin}`);
    expectApiError(res, 405, 'invalid_request', 'method_not_allowed');
    expect(res.headers.allow).toBe('GET, HEAD');
    const put = await request(h.url).put('/v1/orders');
    expectApiError(put, 405, 'invalid_request', 'method_not_allowed');
    expect(put.headers.allow).toBe('GET, HEAD, POST');
  });

  it('forwards HEAD as HEAD on a GET route', async () => {
    const res = await request(h.url).head('/v1/orders/o_1').set('Authorization', `Bearer ${admin}`);
    expect(res.status).toBe(200);
    expect(h.upstreams.orders.last?.method).toBe('HEAD');
  });

  it('answers 503 service_unavailable for a route whose service has no URL configured', async () => {
    const res = await request(h.url).get('/v1/webhooks').set('Authorization', `Bearer ${admin}`);
    expectApiError(res, 503, 'api_error', 'service_unavailable');
    expect(res.headers['retry-after']).toBe('1');
  });

  it('still asks for a token on a route whose service is not configured', async () => {
    const res = await request(h.url).get('/v1/webhooks');
    expectApiError(res, 401, 'authentication_error', 'invalid_token');
  });
});

describe('health', () => {
  it('answers /healthz and /readyz with Redis ok', async () => {
    await request(h.url).get('/healthz').expect(200, { status: 'ok' });
    await request(h.url)
      .get('/readyz')
      .expect(200, { status: 'ready', checks: { redis: 'ok' } });
  });
});

describe('request targets in absolute form (RFC 9112 section 3.2.2)', () => {
  /** A GET whose request line carries `target` as written (Node sends a full URL in absolute form). */
  const absoluteGet = (target: string, headers: Record<string, string> = {}) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const { port } = new URL(h.url);
      const req = http.request(
        { host: '127.0.0.1', port: Number(port), method: 'GET', path: target, headers, agent: false },
        (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on('error', reject);
      req.end();
    });

  it('routes them as their origin form, path and query unchanged', async () => {
    const res = await absoluteGet('http://api.example/v1/orders?limit=5', {
      Authorization: `Bearer ${admin}`,
    });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({
      service: 'orders',
      method: 'GET',
      url: '/v1/orders?limit=5',
    });
  });

  it('serves the probes in absolute form too', async () => {
    const res = await absoluteGet('http://api.example/healthz');
    expect(res.status).toBe(200);
  });
});
