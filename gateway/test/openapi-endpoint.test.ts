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
        // The default API bases of the two environments.
        environments: {
          production: 'https://api.ordering.example/v1',
          test: 'https://api.test.ordering.example/v1',
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
