// A minimal OpenAPI 3.1 description built from the route table: every path, method, path
// parameter and required scope, and the error body. A later step generates the full document
// (request and response schemas) from libs/contracts.
import type { Route } from './route-table';

type JsonObject = Record<string, unknown>;

const ERROR_SCHEMA = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['type', 'code', 'message', 'request_id'],
      properties: {
        type: { type: 'string' },
        code: { type: 'string' },
        message: { type: 'string' },
        param: { type: 'string' },
        request_id: { type: 'string' },
      },
    },
  },
};

function operationId(route: Route): string {
  const words = route.path
    .replace(/^\/v1\//, '')
    .replace(/\.json$/, '')
    .split('/')
    .map((s) => s.replace(/[{}]/g, ''))
    .join('_');
  return `${route.method.toLowerCase()}_${words}`;
}

function operationOf(route: Route): JsonObject {
  const params = [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => ({
    name: m[1],
    in: 'path',
    required: true,
    schema: { type: 'string' },
  }));
  const errorResponse = {
    description: 'An error',
    content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
  };
  return {
    operationId: operationId(route),
    summary: route.summary,
    ...(params.length > 0 ? { parameters: params } : {}),
    security: route.service === 'gateway' ? [] : [{ oauth2: [...route.scopes] }],
    ...(route.scopes.length > 0 ? { 'x-required-scopes-any-of': [...route.scopes] } : {}),
    responses: {
      '200': { description: 'Success', content: { 'application/json': { schema: { type: 'object' } } } },
      default: errorResponse,
    },
  };
}

export interface OpenApiOptions {
  /** The OAuth host origin (token and authorization endpoints). */
  authIssuer: string;
}

export function openApiDocument(routes: readonly Route[], options: OpenApiOptions): JsonObject {
  const paths: Record<string, JsonObject> = {};
  for (const route of routes) {
    const item = (paths[route.path] ??= {});
    item[route.method.toLowerCase()] = operationOf(route);
  }
  const issuer = options.authIssuer.replace(/\/$/, '');
  return {
    openapi: '3.1.0',
    info: { title: 'Ordering Service API', version: 'v1' },
    servers: [{ url: '/' }],
    paths,
    components: {
      schemas: { Error: ERROR_SCHEMA },
      securitySchemes: {
        oauth2: {
          type: 'oauth2',
          flows: {
            authorizationCode: {
              authorizationUrl: `${issuer}/oauth/authorize`,
              tokenUrl: `${issuer}/oauth/token`,
              refreshUrl: `${issuer}/oauth/token`,
              scopes: SCOPES,
            },
            clientCredentials: { tokenUrl: `${issuer}/oauth/token`, scopes: SCOPES },
          },
        },
      },
    },
  };
}

const SCOPES: Record<string, string> = {
  openid: 'ID token; required for OpenID Connect flows',
  profile: 'Name, employee ID, department, cost center',
  email: 'Email address and verification status',
  'orders:read': 'Read own orders and history',
  'orders:write': 'Create and cancel orders',
  'catalog:read': 'Read catalog, pricing, inventory',
  'users:read': 'Read shopper records in the customer account',
  'users:write': 'Create, update, deprovision shopper records',
  'admin:all': 'Full administrative access (customer admins only)',
};
