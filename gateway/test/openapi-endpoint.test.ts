// GET /v1/openapi.json as the gateway serves it: without a token, the document generated from the
// gateway's configuration, once, with an ETag that revalidates to 304 and a Cache-Control.
import request from 'supertest';
import { ROUTES, openApiDocument } from '../src';
import { expectApiError } from './support/api-assertions';
import { type Harness, startHarness } from './support/gateway-harness';

let h: Harness;

beforeAll(async () => {
  h = await startHarness({ env: { PUBLIC_BASE_URL: 'https://api.ordering.test' } });
});
afterAll(() => h.stop());

describe('GET /v1/openapi.json', () => {
  it('is served without a token: the OpenAPI 3.1 document of this configuration, nothing forwarded', async () => {
    const res = await request(h.url).get('/v1/openapi.json').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual(
      openApiDocument(ROUTES, {
        authIssuer: h.issuer.issuer,
        publicBaseUrl: 'https://api.ordering.test',
        // The default API bases and OAuth hosts of the two environments.
        environments: {
          production: 'https://api.ordering.example/v1',
          test: 'https://api.test.ordering.example/v1',
          productionOAuthHost: 'https://auth.ordering.example',
          testOAuthHost: 'https://auth.test.ordering.example',
        },
      }),
    );
    expect(res.body.servers.map((s: { url: string }) => s.url)).toEqual([
      'https://api.ordering.test',
      'https://api.ordering.example',
      'https://api.test.ordering.example',
    ]);
    expect(res.body.openapi).toBe('3.1.0');
    expect(res.body.servers[0].url).toBe('https://api.ordering.test');
    expect(res.body.components.securitySchemes.oauth2.flows.clientCredentials.tokenUrl).toBe(
      `${h.issuer.issuer}/oauth/token`,
    );
    expect(res.headers['x-request-id']).toMatch(/\S/);
    expect(Object.values(h.upstreams).every((u) => u.received.length === 0)).toBe(true);
  });

  it('carries a strong ETag and Cache-Control; the same bytes and ETag on every request', async () => {
    const first = await request(h.url).get('/v1/openapi.json').expect(200);
    const second = await request(h.url).get('/v1/openapi.json').expect(200);
    expect(first.headers.etag).toMatch(/^"[A-Za-z0-9_-]{16,}"$/);
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(second.text).toBe(first.text);
    expect(first.headers['cache-control']).toBe('public, max-age=300');
  });

  it('answers 304 without a body to If-None-Match with the current ETag, 200 to an old one', async () => {
    const { headers } = await request(h.url).get('/v1/openapi.json').expect(200);
    const fresh = await request(h.url)
      .get('/v1/openapi.json')
      .set('If-None-Match', headers.etag as string);
    expect(fresh.status).toBe(304);
    expect(fresh.text).toBe('');
    expect(fresh.headers.etag).toBe(headers.etag);
    const listed = await request(h.url)
      .get('/v1/openapi.json')
      .set('If-None-Match', `"old", ${headers.etag}`);
    expect(listed.status).toBe(304);
    const stale = await request(h.url).get('/v1/openapi.json').set('If-None-Match', '"old"');
    expect(stale.status).toBe(200);
    expect(stale.body.openapi).toBe('3.1.0');
  });

  it('answers HEAD with the headers only, and 405 to other methods', async () => {
    const head = await request(h.url).head('/v1/openapi.json').expect(200);
    expect(head.headers.etag).toMatch(/^"/);
    const res = await request(h.url).post('/v1/openapi.json');
    expectApiError(res, 405, 'invalid_request', 'method_not_allowed');
    expect(res.headers.allow).toBe('GET, HEAD');
  });

  it("takes from the client address's bucket: its 200 and 429 are declared with the headers they carry", async () => {
    const limited = await startHarness({
      issuer: h.issuer,
      env: { RATE_LIMIT_CAPACITY: '2', RATE_LIMIT_REFILL_PER_SECOND: '1' },
    });
    try {
      const answers: request.Response[] = [];
      while (answers.length < 10 && answers.at(-1)?.status !== 429) {
        answers.push(await request(limited.url).get('/v1/openapi.json'));
      }
      const refused = answers.at(-1)!;
      expectApiError(refused, 429, 'rate_limit_error', 'rate_limit_exceeded');
      expect(refused.headers['retry-after']).toMatch(/^[1-9]\d*$/);
      const document = answers[0]!.body;
      expect(answers[0]!.status).toBe(200);
      const operation = document.paths['/v1/openapi.json'].get;
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const deref = (node: any): any =>
        node?.$ref
          ? (node.$ref as string)
              .slice(2)
              .split('/')
              .reduce((n, k) => n[k], document)
          : node;
      const rateLimitHeaders = [
        'x-ratelimit-limit',
        'x-ratelimit-remaining',
        'x-ratelimit-reset',
        'retry-after',
      ];
      const undeclared = answers.flatMap((answer) => {
        const declared = deref(operation.responses[String(answer.status)]);
        if (!declared) return [`status ${answer.status}`];
        const names = Object.keys(declared.headers ?? {}).map((name) => name.toLowerCase());
        return rateLimitHeaders
          .filter((name) => answer.headers[name] !== undefined && !names.includes(name))
          .map((name) => `${name} on ${answer.status}`);
      });
      expect(undeclared).toEqual([]);
      expect(deref(operation.responses['429']).content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/Error',
      });
    } finally {
      await limited.stop();
    }
  });

  it('uses "/" as the server when no public base URL is configured', async () => {
    const bare = await startHarness({ issuer: h.issuer });
    try {
      const res = await request(bare.url).get('/v1/openapi.json').expect(200);
      expect(res.body.servers[0].url).toBe('/');
    } finally {
      await bare.stop();
    }
  });
});
