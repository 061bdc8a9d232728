// The public OpenAPI document as integrators check it: an OpenAPI linter passes it, it describes
// exactly the routed operations, and what it says about parameters, bodies, answers, errors and
// scopes is what decisions.md decided.
import { ALL_EVENT_TYPES, API_COMPONENTS, type z } from '@ordering/contracts';
import { ROUTES, type Route, openApiDocument } from '../src';
import { OPERATIONS } from '../src/openapi/operation-catalog';
import { lintOpenApi } from './support/openapi-lint';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const AUTH = 'https://auth.ordering.test';
const doc = openApiDocument(ROUTES, {
  authIssuer: AUTH,
  publicBaseUrl: 'https://api.ordering.test/v1/',
}) as Json;
const upstream = ROUTES.filter((r) => r.service !== 'gateway');

const operation = (method: string, path: string): Json => {
  const op = doc.paths[path]?.[method.toLowerCase()];
  if (!op) throw new Error(`${method} ${path} is not documented`);
  return op;
};
/** Follows one `$ref` inside the document. */
const deref = (node: Json): Json =>
  node.$ref
    ? (node.$ref as string)
        .slice(2)
        .split('/')
        .reduce((n: Json, k: string) => n[k], doc)
    : node;
const schema = (name: string): Json => doc.components.schemas[name];
const param = (op: Json, name: string): Json | undefined => op.parameters?.find((p: Json) => p.name === name);
const responseSchemaRef = (op: Json, status: number | string) =>
  deref(op.responses[status]).content?.['application/json']?.schema?.$ref;

describe('the OpenAPI document passes an OpenAPI linter', () => {
  it('Redocly recommended ruleset: no error and no warning', async () => {
    const problems = await lintOpenApi(doc);
    expect(problems.map((p) => ({ ruleId: p.ruleId, pointer: p.pointer }))).toEqual([]);
  }, 30_000);

  it('the linter does catch a broken document (the check can fail)', async () => {
    const broken = structuredClone(doc);
    broken.info.version = 1; // must be a string
    broken.paths['/v1/orders/{id}'].get.parameters = [];
    const rules = new Set((await lintOpenApi(broken)).map((p) => p.ruleId));
    expect([...rules]).toEqual(expect.arrayContaining(['struct', 'path-parameters-defined']));
  }, 30_000);
});

describe('operations equal the route table', () => {
  it('documents every route and nothing else: no route undocumented, no documented path unrouted', () => {
    const documented = Object.entries(doc.paths as Json).flatMap(([path, item]) =>
      Object.keys(item as Json).map((method) => `${method.toUpperCase()} ${path}`),
    );
    expect(documented.sort()).toEqual(ROUTES.map((r) => `${r.method} ${r.path}`).sort());
  });

  it('gives each operation a unique operationId, the route summary, a description and one tag of a declared resource', () => {
    const ids = ROUTES.map((r) => operation(r.method, r.path).operationId);
    expect(new Set(ids).size).toBe(ROUTES.length);
    const tags = new Set((doc.tags as Json[]).map((t) => t.name));
    for (const r of ROUTES) {
      const op = operation(r.method, r.path);
      expect(op.summary).toBe(r.summary);
      // A generated client turns it into the method's doc comment; the portal shows it.
      expect({
        op: op.operationId,
        described: typeof op.description === 'string' && op.description.length > 20,
      }).toEqual({
        op: op.operationId,
        described: true,
      });
      expect(op.tags).toHaveLength(1);
      expect(tags.has(op.tags[0])).toBe(true);
    }
    expect(operation('GET', '/v1/orders').tags).toEqual(['Orders']);
    expect(operation('POST', '/v1/users/{login}/deactivate').tags).toEqual(['Users']);
    expect(operation('DELETE', '/v1/webhooks/{id}').tags).toEqual(['Webhooks']);
  });

  it('refuses to generate for a route it has no description of, or a description of no route', () => {
    const extra: Route = {
      method: 'GET',
      path: '/v1/widgets',
      service: 'orders',
      scopes: ['orders:read'],
      summary: 'x',
    };
    expect(() => openApiDocument([...ROUTES, extra], { authIssuer: AUTH })).toThrow('GET /v1/widgets');
    expect(() => openApiDocument(ROUTES.slice(0, -1), { authIssuer: AUTH })).toThrow(
      'POST /v1/webhooks/{id}/deliveries/{delivery_id}/replay',
    );
  });

  it('leaves SCIM out (it has its own discovery)', () => {
    expect(Object.keys(doc.paths).filter((p) => !p.startsWith('/v1/'))).toEqual([]);
  });
});

describe('security', () => {
  it('an oauth2 scheme with the authorization-code and client-credentials flows on the auth host', () => {
    const scheme = doc.components.securitySchemes.oauth2;
    expect(scheme.type).toBe('oauth2');
    expect(scheme.flows.authorizationCode).toMatchObject({
      authorizationUrl: `${AUTH}/oauth/authorize`,
      tokenUrl: `${AUTH}/oauth/token`,
      refreshUrl: `${AUTH}/oauth/token`,
    });
    expect(scheme.flows.clientCredentials.tokenUrl).toBe(`${AUTH}/oauth/token`);
    expect(Object.keys(scheme.flows)).toEqual(['authorizationCode', 'clientCredentials']);
    const specScopes = [
      'openid',
      'profile',
      'email',
      'orders:read',
      'orders:write',
      'catalog:read',
      'users:read',
      'users:write',
      'admin:all',
    ];
    // What each flow can actually be granted: the code flow every spec scope and offline_access;
    // client credentials the API scopes only (openid, profile and email are invalid_scope there),
    // and no refresh token, so no refreshUrl.
    expect(Object.keys(scheme.flows.authorizationCode.scopes).sort()).toEqual(
      [...specScopes, 'offline_access'].sort(),
    );
    expect(Object.keys(scheme.flows.clientCredentials.scopes).sort()).toEqual(
      specScopes.filter((s) => !['openid', 'profile', 'email'].includes(s)).sort(),
    );
    expect(scheme.flows.clientCredentials.refreshUrl).toBeUndefined();
    for (const flow of Object.values(scheme.flows) as Json[]) {
      expect(Object.values(flow.scopes).every((d) => typeof d === 'string' && d.length > 10)).toBe(true);
    }
  });

  it('each operation needs any one of its route scopes (one requirement object per scope)', () => {
    for (const r of upstream) {
      expect(operation(r.method, r.path).security).toEqual(r.scopes.map((s) => ({ oauth2: [s] })));
    }
    expect(operation('GET', '/v1/customers').security).toEqual([
      { oauth2: ['orders:read'] },
      { oauth2: ['admin:all'] },
    ]);
    expect(operation('GET', '/v1/openapi.json').security).toEqual([]);
  });

  it('takes its URLs from the configuration: servers from the public base URL, or "/" without one', () => {
    expect(doc.servers).toEqual([{ url: 'https://api.ordering.test', description: expect.any(String) }]);
    // Both environments (spec rule 2), this one named once as what it is.
    const listed = openApiDocument(ROUTES, {
      authIssuer: AUTH,
      publicBaseUrl: 'https://api.test.ordering.example',
      environments: {
        production: 'https://api.ordering.example/v1',
        test: 'https://api.test.ordering.example/v1/',
      },
    }) as Json;
    expect(listed.servers).toEqual([
      { url: 'https://api.test.ordering.example', description: 'Test environment' },
      { url: 'https://api.ordering.example', description: 'Production' },
    ]);
    // Each environment's server names its own OAuth host: the flows name only this environment's.
    const withHosts = openApiDocument(ROUTES, {
      authIssuer: 'https://auth.test.ordering.example',
      publicBaseUrl: 'https://api.test.ordering.example',
      environments: {
        production: 'https://api.ordering.example/v1',
        test: 'https://api.test.ordering.example/v1',
        productionOAuthHost: 'https://auth.ordering.example',
        testOAuthHost: 'https://auth.test.ordering.example/',
      },
    }) as Json;
    expect(withHosts.servers).toEqual([
      {
        url: 'https://api.test.ordering.example',
        description:
          'Test environment: tokens from its own OAuth host, https://auth.test.ordering.example/oauth/token',
      },
      {
        url: 'https://api.ordering.example',
        description: 'Production: tokens from its own OAuth host, https://auth.ordering.example/oauth/token',
      },
    ]);
    expect(withHosts.components.securitySchemes.oauth2.description).toContain(
      'a token is accepted only by the API of the environment whose OAuth host issued it',
    );
    const bare = openApiDocument(ROUTES, { authIssuer: 'https://login.other.test/' }) as Json;
    expect(bare.servers[0].url).toBe('/');
    expect(bare.components.securitySchemes.oauth2.flows.clientCredentials.tokenUrl).toBe(
      'https://login.other.test/oauth/token',
    );
  });
});

describe('parameters', () => {
  it('declares every path parameter of every route, required, and no other path parameter', () => {
    for (const r of ROUTES) {
      const names = [...r.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      const inPath = (operation(r.method, r.path).parameters ?? []).filter((p: Json) => p.in === 'path');
      expect(inPath.map((p: Json) => p.name)).toEqual(names);
      expect(inPath.every((p: Json) => p.required === true)).toBe(true);
    }
  });

  it('GET /v1/orders: cust_id, status enum, created_after date-time or date, limit 1..100 default 25, starting_after', () => {
    const op = operation('GET', '/v1/orders');
    expect(op.parameters.filter((p: Json) => p.in === 'query').map((p: Json) => p.name)).toEqual([
      'cust_id',
      'status',
      'created_after',
      'limit',
      'starting_after',
    ]);
    expect(deref(param(op, 'status')!.schema).enum).toEqual([
      'pending_approval',
      'approved',
      'in_production',
      'shipped',
      'delivered',
      'cancelled',
    ]);
    // The orders service takes a date alone as midnight UTC (services/orders/README.md); a client
    // that checks its requests against this document must be able to send it.
    expect(param(op, 'created_after')!.schema.anyOf).toEqual([
      { type: 'string', format: 'date-time' },
      { type: 'string', format: 'date' },
    ]);
    expect(param(op, 'limit')).toMatchObject({
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
    });
    expect(op.parameters.every((p: Json) => p.in !== 'query' || p.required === false)).toBe(true);
  });

  it('GET /v1/catalog/items: cust_id required, category_id, q, available boolean', () => {
    const op = operation('GET', '/v1/catalog/items');
    expect(param(op, 'cust_id')).toMatchObject({ in: 'query', required: true });
    expect(param(op, 'category_id')).toMatchObject({ in: 'query', required: false });
    expect(param(op, 'q')).toMatchObject({ in: 'query', required: false });
    expect(param(op, 'available')).toMatchObject({ required: false, schema: { type: 'boolean' } });
    expect(param(op, 'limit')).toBeDefined();
  });

  it('customers, users, approvals, webhooks and deliveries lists have their filters and pagination', () => {
    const queryOf = (path: string) =>
      operation('GET', path)
        .parameters.filter((p: Json) => p.in === 'query')
        .map((p: Json) => p.name);
    expect(queryOf('/v1/customers')).toEqual(['parent_cust_id', 'limit', 'starting_after']);
    expect(queryOf('/v1/users')).toEqual(['cust_id', 'status', 'role', 'limit', 'starting_after']);
    expect(param(operation('GET', '/v1/users'), 'role')!.schema.enum).toEqual([
      'shopper',
      'approver',
      'admin',
    ]);
    expect(queryOf('/v1/approvals')).toEqual(['approver', 'status', 'limit', 'starting_after']);
    expect(param(operation('GET', '/v1/approvals'), 'approver')!.required).toBe(true);
    expect(queryOf('/v1/webhooks')).toEqual(['limit', 'starting_after']);
    expect(queryOf('/v1/webhooks/{id}/deliveries')).toEqual([
      'status',
      'event_type',
      'created_after',
      'created_before',
      'limit',
      'starting_after',
    ]);
  });

  it('Idempotency-Key header on the creating POSTs (orders, users, webhooks) and nowhere else', () => {
    const withKey = ROUTES.filter((r) => param(operation(r.method, r.path), 'Idempotency-Key'));
    expect(withKey.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /v1/orders',
      'POST /v1/users',
      'POST /v1/webhooks',
    ]);
    expect(param(operation('POST', '/v1/orders'), 'Idempotency-Key')).toMatchObject({
      in: 'header',
      required: false,
      schema: { type: 'string' },
    });
  });
});

describe('request bodies', () => {
  const bodyOf = (method: string, path: string) => operation(method, path).requestBody;
  const bodySchema = (method: string, path: string) =>
    deref(bodyOf(method, path).content['application/json'].schema);

  it('POST /v1/orders requires cust_id, shipping_address_id and items (1..100 of item_code + integer quantity >= 1)', () => {
    expect(bodyOf('POST', '/v1/orders').required).toBe(true);
    const create = bodySchema('POST', '/v1/orders');
    expect(create.required).toEqual(['cust_id', 'shipping_address_id', 'items']);
    expect(Object.keys(create.properties)).toEqual([
      'cust_id',
      'shipping_address_id',
      'cost_center',
      'po_number',
      'items',
    ]);
    expect(create.properties.items).toMatchObject({ type: 'array', minItems: 1, maxItems: 100 });
    expect(create.properties.items.items).toMatchObject({
      required: ['item_code', 'quantity'],
      properties: { quantity: { type: 'integer', minimum: 1 } },
    });
  });

  it('each body is the named request schema of the contracts, with `required` as decided', () => {
    const cases: [string, string, string, boolean, string[] | undefined][] = [
      ['POST', '/v1/orders', 'CreateOrderRequest', true, ['cust_id', 'shipping_address_id', 'items']],
      ['POST', '/v1/orders/{id}/cancel', 'CancelOrderRequest', false, undefined],
      ['POST', '/v1/users', 'CreateUserRequest', true, ['login', 'email', 'name']],
      ['PATCH', '/v1/users/{login}', 'UpdateUserRequest', true, undefined],
      ['POST', '/v1/approvals/{approval_id}/approve', 'ApproveRequest', false, undefined],
      ['POST', '/v1/approvals/{approval_id}/reject', 'RejectRequest', true, ['reason']],
      [
        'POST',
        '/v1/approvals/preview',
        'CreateOrderRequest',
        true,
        ['cust_id', 'shipping_address_id', 'items'],
      ],
      ['POST', '/v1/webhooks', 'CreateWebhookRequest', true, ['url', 'events']],
      ['PATCH', '/v1/webhooks/{id}', 'UpdateWebhookRequest', true, undefined],
      ['POST', '/v1/webhooks/{id}/replay', 'ReplayWebhookDeliveriesRequest', true, ['since']],
      ['PUT', '/v1/customers/{cust_id}/approval_chain', 'PutApprovalChainRequest', true, ['steps']],
      // Actions without parameters: no body or `{}` (a field in it is 422 unknown_field).
      ['POST', '/v1/users/{login}/deactivate', 'EmptyRequest', false, undefined],
      ['POST', '/v1/webhooks/{id}/rotate_secret', 'EmptyRequest', false, undefined],
      ['POST', '/v1/webhooks/{id}/test', 'EmptyRequest', false, undefined],
      ['POST', '/v1/webhooks/{id}/deliveries/{delivery_id}/replay', 'EmptyRequest', false, undefined],
      ['POST', '/v1/oauth_clients/{id}/rotate_secret', 'EmptyRequest', false, undefined],
    ];
    for (const [method, path, name, bodyRequired, fields] of cases) {
      const body = bodyOf(method, path);
      expect({ path, ref: body.content['application/json'].schema.$ref, required: body.required }).toEqual({
        path,
        ref: `#/components/schemas/${name}`,
        required: bodyRequired,
      });
      expect({ name, required: schema(name).required }).toEqual({ name, required: fields });
    }
    const withBody = ROUTES.filter((r) => operation(r.method, r.path).requestBody).length;
    expect(withBody).toBe(cases.length);
  });
});

describe('responses', () => {
  it('answers the decided success status and schema', () => {
    const cases: [string, string, number, string][] = [
      ['GET', '/v1/orders', 200, 'OrderList'],
      ['POST', '/v1/orders', 201, 'Order'],
      ['GET', '/v1/orders/{id}', 200, 'Order'],
      ['POST', '/v1/orders/{id}/cancel', 200, 'Order'],
      ['GET', '/v1/catalog/items', 200, 'CatalogItemList'],
      ['GET', '/v1/catalog/items/{id}', 200, 'CatalogItem'],
      ['GET', '/v1/customers', 200, 'CustomerList'],
      ['GET', '/v1/customers/{cust_id}', 200, 'Customer'],
      ['GET', '/v1/customers/{cust_id}/approval_chain', 200, 'ApprovalChain'],
      ['PUT', '/v1/customers/{cust_id}/approval_chain', 200, 'ApprovalChain'],
      ['GET', '/v1/users', 200, 'UserList'],
      ['POST', '/v1/users', 201, 'User'],
      ['GET', '/v1/users/{login}', 200, 'User'],
      ['PATCH', '/v1/users/{login}', 200, 'User'],
      ['POST', '/v1/users/{login}/deactivate', 200, 'User'],
      ['GET', '/v1/approvals', 200, 'ApprovalList'],
      ['POST', '/v1/approvals/{approval_id}/approve', 200, 'Approval'],
      ['POST', '/v1/approvals/{approval_id}/reject', 200, 'Approval'],
      ['POST', '/v1/approvals/preview', 200, 'ApprovalPreview'],
      ['GET', '/v1/oauth_clients', 200, 'OAuthClientList'],
      ['GET', '/v1/oauth_clients/{id}', 200, 'OAuthClient'],
      ['POST', '/v1/oauth_clients/{id}/rotate_secret', 200, 'OAuthClientWithSecret'],
      ['GET', '/v1/webhooks', 200, 'WebhookSubscriptionList'],
      ['POST', '/v1/webhooks', 201, 'WebhookSubscriptionWithSecret'],
      ['GET', '/v1/webhooks/{id}', 200, 'WebhookSubscription'],
      ['PATCH', '/v1/webhooks/{id}', 200, 'WebhookSubscription'],
      ['DELETE', '/v1/webhooks/{id}', 200, 'DeletedWebhookSubscription'],
      ['POST', '/v1/webhooks/{id}/rotate_secret', 200, 'WebhookSubscriptionWithSecret'],
      ['POST', '/v1/webhooks/{id}/test', 202, 'WebhookDelivery'],
      ['GET', '/v1/webhooks/{id}/deliveries', 200, 'WebhookDeliveryList'],
      ['POST', '/v1/webhooks/{id}/deliveries/{delivery_id}/replay', 202, 'WebhookDelivery'],
      ['GET', '/v1/webhooks/{id}/deliveries/{delivery_id}', 200, 'WebhookDelivery'],
      ['POST', '/v1/webhooks/{id}/replay', 200, 'WebhookReplay'],
    ];
    expect(cases).toHaveLength(upstream.length);
    for (const [method, path, status, name] of cases) {
      const op = operation(method, path);
      const successes = Object.keys(op.responses).filter((s) => s.startsWith('2'));
      expect({ path, method, successes, ref: responseSchemaRef(op, status) }).toEqual({
        path,
        method,
        successes: [String(status)],
        ref: `#/components/schemas/${name}`,
      });
    }
  });

  it('the signing secret is a required member of the answers that show it, and no member of the others', () => {
    expect(schema('WebhookSubscriptionWithSecret').required).toContain('signing_secret');
    expect(schema('WebhookSubscriptionWithSecret').properties.signing_secret).toMatchObject({
      type: 'string',
    });
    expect(schema('WebhookSubscription').properties).not.toHaveProperty('signing_secret');
    expect(schema('OAuthClientWithSecret').required).toContain('client_secret');
    expect(schema('OAuthClient').properties).not.toHaveProperty('client_secret');
  });

  it('list envelopes are named per resource: object "list", url, has_more, nullable next_cursor, data of the resource', () => {
    const list = schema('OrderList');
    expect(list.required).toEqual(['object', 'url', 'has_more', 'next_cursor', 'data']);
    expect(list.properties.object).toMatchObject({ type: 'string', enum: ['list'] });
    expect(list.properties.next_cursor.type).toEqual(['string', 'null']);
    expect(list.properties.data.items.$ref).toBe('#/components/schemas/Order');
    expect(schema('UserList').properties.data.items.$ref).toBe('#/components/schemas/User');
  });

  it('every upstream operation answers 401, 403, 429, 500, 503 and 504 with the Error body', () => {
    for (const r of upstream) {
      const op = operation(r.method, r.path);
      for (const status of ['401', '403', '429', '500', '503', '504']) {
        expect({ op: op.operationId, status, ref: responseSchemaRef(op, status) }).toEqual({
          op: op.operationId,
          status,
          ref: '#/components/schemas/Error',
        });
      }
    }
  });

  it('404, 409, 400/413/415 and 422 only where they can happen', () => {
    const statuses = (method: string, path: string) => Object.keys(operation(method, path).responses);
    expect(statuses('GET', '/v1/orders/{id}')).toEqual([
      '200',
      '401',
      '403',
      '404',
      '422',
      '429',
      '500',
      '503',
      '504',
    ]);
    expect(statuses('POST', '/v1/orders')).toEqual([
      '201',
      '400',
      '401',
      '403',
      '404',
      '409',
      '413',
      '415',
      '422',
      '429',
      '500',
      '503',
      '504',
    ]);
    // An optional body is a body too: a cancel reason sent as text/plain is 415.
    expect(statuses('POST', '/v1/orders/{id}/cancel')).toContain('415');
    // Every service reads the body of a POST, PUT or PATCH (a parameterless action's too, which must
    // be none or `{}`): bytes that are not JSON are 400, another media type 415, too many 413.
    for (const r of ROUTES.filter((route) => ['POST', 'PUT', 'PATCH'].includes(route.method))) {
      expect({ route: `${r.method} ${r.path}`, statuses: statuses(r.method, r.path) }).toEqual({
        route: `${r.method} ${r.path}`,
        statuses: expect.arrayContaining(['400', '413', '415', '422']),
      });
    }
    // A body sent with GET or DELETE is not read at all.
    expect(statuses('DELETE', '/v1/webhooks/{id}')).not.toContain('400');
    expect(deref(operation('POST', '/v1/orders').responses['415']).description).toContain(
      'unsupported_media_type',
    );
    expect(statuses('GET', '/v1/webhooks')).toEqual(['200', '401', '403', '422', '429', '500', '503', '504']);
    // A path parameter holding a NUL or a lone surrogate is 422 invalid_value, bodies or not.
    expect(statuses('POST', '/v1/users/{login}/deactivate')).toContain('422');
    // A cust_id filter outside the token's reach is 404; parent_cust_id outside it lists nothing.
    expect(statuses('GET', '/v1/users')).toContain('404');
    expect(statuses('GET', '/v1/customers')).not.toContain('404');
    // An approver whose queue the token may not read is 404, param approver.
    expect(statuses('GET', '/v1/approvals')).toContain('404');
    expect(operation('GET', '/v1/approvals').description).toMatch(
      /Client-credentials tokens and admins .* read any approver's queue of their account tree/,
    );
    const cancel409 = deref(operation('POST', '/v1/orders/{id}/cancel').responses['409']);
    expect(cancel409.description).toContain('order_not_cancellable');
    expect(deref(operation('POST', '/v1/users').responses['409']).description).toContain('login_taken');
    expect(
      deref(operation('POST', '/v1/approvals/{approval_id}/approve').responses['409']).description,
    ).toContain('approval_not_pending');
    // A demoted approver decides nothing: approve and reject document that 403 beside the scope's.
    for (const action of ['approve', 'reject']) {
      const forbidden = deref(operation('POST', `/v1/approvals/{approval_id}/${action}`).responses['403']);
      expect(forbidden.description).toContain('insufficient_scope');
      expect(forbidden.description).toContain('approver_role_required');
    }
    expect(deref(operation('POST', '/v1/orders').responses['403']).description).not.toContain(
      'approver_role_required',
    );
    const withConflict = ROUTES.filter((r) => operation(r.method, r.path).responses['409']).map(
      (r) => `${r.method} ${r.path}`,
    );
    expect(withConflict).toEqual([
      'POST /v1/orders',
      'POST /v1/orders/{id}/cancel',
      'POST /v1/users',
      'POST /v1/approvals/{approval_id}/approve',
      'POST /v1/approvals/{approval_id}/reject',
      'POST /v1/oauth_clients/{id}/rotate_secret',
      'POST /v1/webhooks',
      'POST /v1/webhooks/{id}/replay',
      'POST /v1/webhooks/{id}/deliveries/{delivery_id}/replay',
    ]);
    // No event is sent to a disabled subscription: its replays are refused (a test event still goes).
    expect(deref(operation('POST', '/v1/webhooks/{id}/replay').responses['409']).description).toContain(
      'webhook_disabled',
    );
    expect(operation('POST', '/v1/webhooks/{id}/test').responses['409']).toBeUndefined();
  });

  it('response headers: X-Request-Id, traceresponse and the rate-limit headers everywhere, Retry-After on 429 and 503, WWW-Authenticate on 401, Idempotent-Replayed on creations', () => {
    for (const r of ROUTES) {
      const op = operation(r.method, r.path);
      for (const [status, response] of Object.entries(op.responses as Json)) {
        const headers = Object.keys(deref(response).headers ?? {});
        expect({ op: op.operationId, status, headers }).toEqual({
          op: op.operationId,
          status,
          headers: expect.arrayContaining([
            'X-Request-Id',
            'traceresponse',
            'X-RateLimit-Limit',
            'X-RateLimit-Remaining',
            'X-RateLimit-Reset',
          ]),
        });
      }
    }
    // Every answer carries the gateway's trace (README "Tracing and metrics"); without telemetry
    // started (tests) there is none, so it is not required.
    expect(deref(doc.components.headers.traceresponse)).toMatchObject({ schema: { type: 'string' } });
    expect(doc.components.headers.traceresponse.required).toBeUndefined();
    expect(doc.components.headers.traceresponse.schema.pattern).toBeDefined();
    expect(
      new RegExp(doc.components.headers.traceresponse.schema.pattern).test(
        '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
      ),
    ).toBe(true);
    for (const r of upstream) {
      const op = operation(r.method, r.path);
      expect(Object.keys(deref(op.responses['429']).headers)).toContain('Retry-After');
      expect(Object.keys(deref(op.responses['503']).headers)).toContain('Retry-After');
      expect(Object.keys(deref(op.responses['504']).headers)).not.toContain('Retry-After');
      expect(deref(deref(op.responses['401']).headers['WWW-Authenticate'])).toMatchObject({ required: true });
    }
    expect(deref(doc.components.headers['Retry-After'])).toMatchObject({
      required: true,
      schema: { type: 'integer', minimum: 1 },
    });
    for (const path of ['/v1/orders', '/v1/users', '/v1/webhooks']) {
      expect(Object.keys(operation('POST', path).responses['201'].headers)).toContain('Idempotent-Replayed');
    }
    expect(Object.keys(operation('GET', '/v1/orders').responses['200'].headers)).not.toContain(
      'Idempotent-Replayed',
    );
  });

  it("GET /v1/openapi.json: the client address's rate-limit headers on 200 and 304, and its 429", () => {
    const op = operation('GET', '/v1/openapi.json');
    expect(Object.keys(op.responses)).toEqual(['200', '304', '429']);
    for (const status of ['200', '304']) {
      expect({ status, headers: Object.keys(op.responses[status].headers) }).toEqual({
        status,
        headers: expect.arrayContaining([
          'X-Request-Id',
          'X-RateLimit-Limit',
          'X-RateLimit-Remaining',
          'X-RateLimit-Reset',
          'ETag',
          'Cache-Control',
        ]),
      });
    }
    expect(op.responses['429']).toEqual({ $ref: '#/components/responses/TooManyRequests' });
  });
});

describe('schemas from the contracts', () => {
  it('Order: money fields are Money, whose amount is an integer (minor units) and currency a 3-letter code', () => {
    const order = schema('Order');
    for (const field of ['subtotal', 'tax', 'shipping', 'total']) {
      expect(order.properties[field].$ref).toBe('#/components/schemas/Money');
    }
    expect(schema('OrderItem').properties.unit_price.$ref).toBe('#/components/schemas/Money');
    expect(schema('Money').properties.amount.type).toBe('integer');
    expect(schema('Money').properties.currency).toMatchObject({ type: 'string', pattern: '^[A-Z]{3}$' });
    expect(schema('Money').required).toEqual(['amount', 'currency']);
  });

  it('Order: status enum, timestamps as date-time, approved_at nullable', () => {
    const order = schema('Order');
    expect(order.properties.status.$ref).toBe('#/components/schemas/OrderStatus');
    expect(order.properties.submitted_at).toMatchObject({ type: 'string', format: 'date-time' });
    expect(order.properties.approved_at.type).toEqual(['string', 'null']);
  });

  it('a property the contracts allow to be null allows null in the document (named schemas included)', () => {
    const allowsNull = (node: Json): boolean =>
      node.type === 'null' ||
      (Array.isArray(node.type) && node.type.includes('null')) ||
      ((node.anyOf ?? node.oneOf) as Json[] | undefined)?.some((n) => allowsNull(deref(n))) === true;
    const checked: string[] = [];
    // The contracts' components and the ones only an operation answers (`ApprovalPreview`, ...).
    const components: [string, z.ZodType][] = [...Object.entries(API_COMPONENTS)];
    for (const route of upstream) {
      const spec = OPERATIONS[`${route.method} ${route.path}`]!;
      const success = deref(operation(route.method, route.path).responses[spec.success.status]);
      const ref = success.content?.['application/json']?.schema?.$ref as string | undefined;
      if (ref) components.push([ref.split('/').pop()!, spec.success.schema]);
    }
    for (const [name, zod] of components) {
      const shape = (zod as unknown as { shape?: Record<string, z.ZodType> }).shape;
      if (!shape || !doc.components.schemas[name]) continue;
      for (const [key, property] of Object.entries(shape)) {
        if (!property.safeParse(null).success) continue;
        const generated = doc.components.schemas[name].properties[key];
        expect({ property: `${name}.${key}`, allowsNull: allowsNull(generated) }).toEqual({
          property: `${name}.${key}`,
          allowsNull: true,
        });
        checked.push(`${name}.${key}`);
      }
    }
    expect(checked).toEqual(
      expect.arrayContaining([
        'Customer.approval_required_over',
        'Order.cancellation',
        'Order.shipment',
        'Order.approved_at',
        'ApprovalPreview.approval_required_over',
        'OAuthClient.secret_due_at',
      ]),
    );
    expect(schema('Customer').properties.approval_required_over.anyOf[0].$ref).toBe(
      '#/components/schemas/Money',
    );
  });

  it('Money.amount is int64 in the safe-integer range (a generated Java client reads it as a Long, not an int)', () => {
    expect(schema('Money').properties.amount).toMatchObject({
      type: 'integer',
      format: 'int64',
      minimum: -Number.MAX_SAFE_INTEGER,
      maximum: Number.MAX_SAFE_INTEGER,
    });
  });

  it('Error: type, code, message and request_id required; param optional', () => {
    const error = schema('Error').properties.error;
    expect(error.required).toEqual(['type', 'code', 'message', 'request_id']);
    expect(error.properties.type.enum).toContain('invalid_request');
  });
});

describe('webhooks', () => {
  it('describes the signed POST a subscriber receives for every event type', () => {
    expect(Object.keys(doc.webhooks).sort()).toEqual([...ALL_EVENT_TYPES].sort());
    const shipped = doc.webhooks['order.shipped'].post;
    expect(shipped.requestBody.content['application/json'].schema.$ref).toBe(
      '#/components/schemas/OrderShippedEvent',
    );
    expect(shipped.parameters.map((p: Json) => p.name)).toEqual([
      'Service-Event',
      'Service-Delivery',
      'Service-Signature',
    ]);
    expect(shipped.security).toEqual([{ webhookSignature: [] }]);
  });
});

describe('request bodies are strict (decisions.md "Errors": unknown_field)', () => {
  /** Every object schema reachable from `node`, with where it was found. */
  function objectsIn(node: Json, where: string, seen = new Set<Json>()): { where: string; schema: Json }[] {
    const s = deref(node);
    if (seen.has(s)) return [];
    seen.add(s);
    const found: { where: string; schema: Json }[] = [];
    if (s.type === 'object' || s.properties) found.push({ where, schema: s });
    for (const [name, child] of Object.entries((s.properties ?? {}) as Json))
      found.push(...objectsIn(child as Json, `${where}.${name}`, seen));
    if (s.items) found.push(...objectsIn(s.items as Json, `${where}[]`, seen));
    for (const key of ['allOf', 'anyOf', 'oneOf'])
      for (const [i, child] of ((s[key] ?? []) as Json[]).entries())
        found.push(...objectsIn(child, `${where}/${key}/${i}`, seen));
    return found;
  }

  it('every object of every request body, nested ones included, says additionalProperties: false', () => {
    const objects = upstream.flatMap((route) => {
      const body = operation(route.method, route.path).requestBody;
      return body ? objectsIn(body.content['application/json'].schema, `${route.method} ${route.path}`) : [];
    });
    // Orders' items and the approval chain's steps are nested request objects.
    expect(objects.some((o) => o.where.endsWith('.items[]'))).toBe(true);
    expect(objects.length).toBeGreaterThanOrEqual(10);
    expect(objects.filter((o) => o.schema.additionalProperties !== false).map((o) => o.where)).toEqual([]);
  });

  it('resource schemas stay loose (readers ignore fields they do not know)', () => {
    expect(schema('User').additionalProperties).not.toBe(false);
    expect(schema('Order').additionalProperties).not.toBe(false);
  });
});
