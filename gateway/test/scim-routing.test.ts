// SCIM 2.0 through the gateway: every path under /scim/v2 reaches the customers service unchanged,
// with the verified caller's identity, for tokens with users:write; nothing else under /scim is
// forwarded, and SCIM stays out of the OpenAPI document.
import request from 'supertest';
import { verifyIdentity } from '@ordering/http';
import { expectApiError } from './support/api-assertions';
import { IDENTITY_SECRET, type Harness, startHarness } from './support/gateway-harness';

let h: Harness;
let provisioner: string;

beforeAll(async () => {
  h = await startHarness();
  provisioner = h.issuer.mint({ scope: 'users:write', cust_id: 'ACME', login: 'okta-feed' });
});
afterAll(() => h.stop());
beforeEach(() => Object.values(h.upstreams).forEach((u) => u.reset()));

const nothingForwarded = () => Object.values(h.upstreams).every((u) => u.received.length === 0);

describe('SCIM routing', () => {
  it.each([
    ['get', '/scim/v2/ServiceProviderConfig'],
    ['get', '/scim/v2/ResourceTypes'],
    ['get', '/scim/v2/ResourceTypes/User'],
    ['get', '/scim/v2/Schemas'],
    ['get', '/scim/v2/Schemas/urn:ietf:params:scim:schemas:core:2.0:User'],
    ['get', '/scim/v2/Users?filter=userName%20eq%20%22ann%40acme.test%22&startIndex=1&count=10'],
    ['get', '/scim/v2/Users/ann'],
    ['put', '/scim/v2/Users/ann'],
    ['patch', '/scim/v2/Users/ann'],
    ['delete', '/scim/v2/Users/ann'],
    ['get', '/scim/v2/Groups'],
  ] as const)(
    '%s %s reaches the customers service with method, path and query unchanged',
    async (verb, url) => {
      const res = await request(h.url)[verb](url).set('Authorization', `Bearer ${provisioner}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ service: 'customers', method: verb.toUpperCase(), url });
      expect(
        Object.values(h.upstreams)
          .filter((u) => u.received.length > 0)
          .map((u) => u.name),
      ).toEqual(['customers']);
    },
  );

  it('forwards a SCIM create with its body and content type, the signed identity instead of the token', async () => {
    const body = JSON.stringify({ schemas: ['urn:ietf:params:scim:schemas:core:2.0:User'], userName: 'ann' });
    h.upstreams.customers.behaviour = (_req, res) => {
      res.writeHead(201, {
        'content-type': 'application/scim+json',
        location: 'https://x/scim/v2/Users/ann',
      });
      res.end('{"id":"ann"}');
    };
    const res = await request(h.url)
      .post('/scim/v2/Users')
      .set('Authorization', `Bearer ${provisioner}`)
      .set('Content-Type', 'application/scim+json')
      .send(body);
    expect(res.status).toBe(201);
    expect(res.headers['content-type']).toBe('application/scim+json');
    expect(res.headers.location).toBe('https://x/scim/v2/Users/ann');
    expect(res.headers['x-ratelimit-limit']).toBe('120');
    const received = h.upstreams.customers.last!;
    expect(received.body.toString()).toBe(body);
    expect(received.headers['content-type']).toBe('application/scim+json');
    expect(received.headers.authorization).toBeUndefined();
    const identity = verifyIdentity(received.headers['x-ordering-identity'] as string, IDENTITY_SECRET);
    expect(identity).toMatchObject({ cust_id: 'ACME', login: 'okta-feed', scopes: ['users:write'] });
  });

  it('needs a bearer token with users:write (admin:all implies it)', async () => {
    expectApiError(await request(h.url).get('/scim/v2/Users'), 401, 'authentication_error', 'invalid_token');
    const reader = h.issuer.mint({ scope: 'users:read orders:write' });
    const denied = await request(h.url).get('/scim/v2/Users').set('Authorization', `Bearer ${reader}`);
    expectApiError(denied, 403, 'permission_error', 'insufficient_scope');
    expect(nothingForwarded()).toBe(true);
    const admin = h.issuer.mint({ scope: 'admin:all' });
    await request(h.url).get('/scim/v2/Users').set('Authorization', `Bearer ${admin}`).expect(200);
  });

  it('forwards nothing outside /scim/v2/<segments>: 404 before asking for a token', async () => {
    for (const path of [
      '/scim/v2',
      '/scim/v2/',
      '/scim/v2//Users',
      '/scim/v1/Users',
      '/scim/Users',
      '/scimx/v2/Users',
      '/scim/v2/../../internal/admin',
      '/scim/v2/Users/%2e%2e/%2e%2e/internal',
      '/scim/v2/Users/a%2Fb',
      '/scim/v2/Users/a%5Cb',
    ]) {
      const res = await request(h.url).get(path).set('Authorization', `Bearer ${provisioner}`);
      expectApiError(res, 404, 'invalid_request', 'resource_missing');
    }
    expect(nothingForwarded()).toBe(true);
  });

  it('answers 405 with Allow to a method SCIM does not use', async () => {
    const res = await request(h.url).options('/scim/v2/Users').set('Authorization', `Bearer ${provisioner}`);
    expectApiError(res, 405, 'invalid_request', 'method_not_allowed');
    expect(res.headers.allow).toBe('DELETE, GET, HEAD, PATCH, POST, PUT');
    expect(nothingForwarded()).toBe(true);
  });

  it('is not in the OpenAPI document', async () => {
    const res = await request(h.url).get('/v1/openapi.json').expect(200);
    expect(Object.keys(res.body.paths).filter((p) => p.startsWith('/scim'))).toEqual([]);
  });
});
