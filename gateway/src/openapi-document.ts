// The public OpenAPI 3.1 document (GET /v1/openapi.json), generated from the shared contracts
// (libs/contracts: named zod schemas of every resource, request body, list envelope and query) and
// the route table: every routed operation with its parameters, body, success answer, the errors it
// can answer, the response headers, and the scopes it needs. Built once at start-up.
import {
  ALL_EVENT_TYPES,
  API_COMPONENTS,
  EVENT_SCHEMAS,
  IDEMPOTENCY_KEY_PATTERN,
  OpenAPIRegistry,
  OpenApiGeneratorV31,
  eventComponentName,
  z,
} from '@ordering/contracts';
import { simplifyForGeneratedClients } from './openapi/generated-client-shapes';
import { NullableRefFixer } from './openapi/nullable-refs';
import {
  OPERATIONS,
  type OperationSpec,
  PATH_PARAMETER_DESCRIPTIONS,
  type RouteKey,
  TAGS,
} from './openapi/operation-catalog';
import {
  ERROR_RESPONSES,
  HEADER_COMPONENTS,
  type SharedErrorStatus,
  commonHeaders,
  conflictResponse,
  forbiddenResponse,
  errorResponseRef,
} from './openapi/openapi-responses';
import {
  WEBHOOK_SIGNATURE_SCHEME,
  registerEventWebhooks,
  webhookSignatureScheme,
} from './openapi/openapi-webhooks';
import { SECURITY_SCHEME_NAME, oauth2SecurityScheme, securityRequirements } from './openapi/openapi-security';
import type { Route } from './route-table';

type JsonObject = Record<string, unknown>;

export interface OpenApiOptions {
  /** The OAuth host origin (AUTH_ISSUER): authorization and token URLs of the flows. */
  authIssuer: string;
  /**
   * The public origin of the API (PUBLIC_BASE_URL), e.g. `https://api.ordering.example`; paths
   * carry `/v1`. Unset: the server is `/`, the host that served the document.
   */
  publicBaseUrl?: string;
  /**
   * The API bases of production and test (API_BASE_URL, TEST_API_BASE_URL), listed after this host,
   * each described with its own OAuth host (OAUTH_HOST_URL, TEST_OAUTH_HOST_URL) when given: the
   * flows of the security scheme name only this environment's.
   */
  environments?: { production: string; test: string; productionOAuthHost?: string; testOAuthHost?: string };
}

export const API_TITLE = 'Ordering Service API';
export const API_VERSION = 'v1';

const DESCRIPTION = [
  'B2B ordering: orders, the catalog as seen by one customer account, customer accounts, shopper users,',
  'approvals and webhook subscriptions. JSON over HTTPS with OAuth 2.0 bearer tokens.',
  '',
  "Lists are cursor-paginated (`limit` 1..100, default 25; `starting_after` = the previous page's",
  '`next_cursor`; anything else is 422 `invalid_value`). Request bodies are JSON objects sent with',
  '`Content-Type: application/json` (or `application/*+json`): a body in another media type is 415',
  '`unsupported_media_type`, JSON that is not an object 422 `invalid_value`. Date-time query values',
  'are ISO 8601 with a zone, or a date alone (midnight UTC), naming a real day. Creating POSTs accept `Idempotency-Key` (24 hours). Every error has the `Error`',
  'body with `error.request_id` equal to the `X-Request-Id` header. Money amounts are integers in the',
  "currency's minor unit. Additive changes (new fields, new endpoints) may be released within /v1:",
  'ignore unknown fields. Events pushed to webhook subscribers are described under `webhooks`.',
].join('\n');

/** `/v1/orders/{id}` -> the schema of its path parameters, or undefined without any. */
function pathParams(path: string): z.ZodObject | undefined {
  const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string);
  if (names.length === 0) return undefined;
  return z.object(
    Object.fromEntries(
      names.map((name) => [
        name,
        z
          .string()
          .min(1)
          .openapi({ description: PATH_PARAMETER_DESCRIPTIONS[name] ?? `The ${name}` }),
      ]),
    ),
  );
}

const IdempotencyHeaders = z.object({
  'Idempotency-Key': z
    .string()
    .min(1)
    .max(255)
    .regex(IDEMPOTENCY_KEY_PATTERN)
    .optional()
    .openapi({
      description:
        'A unique value (a UUID is recommended) of 1 to 255 visible ASCII characters, no spaces ' +
        '(otherwise 422 `invalid_value`, param `Idempotency-Key`). A retry with the same key and body ' +
        'within 24 hours answers the original status and body with `Idempotent-Replayed: true`.',
      example: '5f1d7c3e-9a64-4c1b-8f0e-2b7f4a8c9d10',
    }),
});

/** The error statuses an operation can answer, per decisions.md's Errors table. */
function errorResponsesOf(spec: OperationSpec, hasPathParams: boolean): Record<string, unknown> {
  const shared: SharedErrorStatus[] = [401, 403];
  if (spec.body) shared.push(400);
  if (hasPathParams || spec.namesAccount) shared.push(404);
  if (spec.body) shared.push(413, 415);
  // Path parameters too: one holding text no service accepts (NUL, lone surrogates) is 422.
  if (spec.body || spec.query || spec.idempotent || hasPathParams) shared.push(422);
  shared.push(429, 500, 503, 504);
  const responses: Record<string, unknown> = {};
  for (const status of shared.sort((a, b) => a - b)) responses[status] = errorResponseRef(status);
  if (spec.forbidden) responses[403] = forbiddenResponse(spec.forbidden);
  const conflicts = [
    ...(spec.conflicts ?? []).map((code) => ({ type: 'invalid_request', code })),
    ...(spec.idempotent ? [{ type: 'invalid_request', code: 'idempotency_key_in_use' }] : []),
  ];
  if (conflicts.length > 0) responses[409] = conflictResponse(conflicts);
  return Object.fromEntries(Object.entries(responses).sort(([a], [b]) => Number(a) - Number(b)));
}

function registerUpstreamOperation(registry: OpenAPIRegistry, route: Route, spec: OperationSpec): void {
  const params = pathParams(route.path);
  registry.registerPath({
    method: route.method.toLowerCase() as 'get' | 'post' | 'put' | 'patch' | 'delete',
    path: route.path,
    operationId: spec.operationId,
    summary: route.summary,
    ...(spec.description ? { description: spec.description } : {}),
    tags: [spec.tag],
    security: securityRequirements(route.scopes),
    request: {
      ...(params ? { params } : {}),
      ...(spec.query ? { query: spec.query } : {}),
      ...(spec.idempotent ? { headers: IdempotencyHeaders } : {}),
      ...(spec.body
        ? {
            body: {
              required: spec.body.required,
              content: { 'application/json': { schema: spec.body.schema } },
            },
          }
        : {}),
    },
    responses: {
      [spec.success.status]: {
        description: spec.success.description,
        headers: {
          ...commonHeaders(),
          ...(spec.idempotent
            ? { 'Idempotent-Replayed': { $ref: '#/components/headers/Idempotent-Replayed' } }
            : {}),
        },
        content: { 'application/json': { schema: spec.success.schema } },
      },
      ...errorResponsesOf(spec, params !== undefined),
    },
  });
}

/**
 * GET /v1/openapi.json, answered by the gateway itself without a token. It takes from the client
 * address's rate-limit bucket (README "Rate limits"): its answers carry the rate-limit headers, and
 * an address over the limit gets the 429.
 */
function registerDocumentOperation(registry: OpenAPIRegistry, route: Route): void {
  const cacheHeaders = {
    ...commonHeaders(),
    ETag: { description: 'Version of the document', required: true, schema: { type: 'string' as const } },
    'Cache-Control': {
      description: 'How long the document may be cached',
      schema: { type: 'string' as const },
    },
  };
  registry.registerPath({
    method: 'get',
    path: route.path,
    operationId: 'getOpenApiDocument',
    summary: route.summary,
    description: 'This document. No token needed. Send `If-None-Match` with the last `ETag` to revalidate.',
    tags: ['Meta'],
    security: [],
    request: {
      headers: z.object({
        'If-None-Match': z.string().optional().openapi({ description: 'The `ETag` of a copy already held' }),
      }),
    },
    responses: {
      200: {
        description: 'The OpenAPI 3.1 document',
        headers: cacheHeaders,
        content: {
          'application/json': {
            schema: {
              type: 'object',
              required: ['openapi', 'info', 'paths'],
              properties: {
                openapi: { type: 'string' as const },
                info: { type: 'object' as const },
                paths: { type: 'object' as const },
              },
            },
          },
        },
      },
      304: { description: 'The copy named by `If-None-Match` is current', headers: cacheHeaders },
      429: errorResponseRef(429),
    },
  });
}

/** The server URL: the public origin without a trailing `/` or `/v1` (paths start with /v1). */
function serverUrl(publicBaseUrl: string | undefined): string {
  if (!publicBaseUrl) return '/';
  return publicBaseUrl.replace(/\/+$/, '').replace(/\/v1$/, '') || '/';
}

/** An environment's server description, naming the OAuth host whose tokens its API accepts. */
function environmentDescription(name: string, oauthHost: string | undefined): string {
  if (!oauthHost) return name;
  return `${name}: tokens from its own OAuth host, ${oauthHost.replace(/\/+$/, '')}/oauth/token`;
}

/** This host first, then production and test (spec rule 2), each once. */
function servers(options: OpenApiOptions): { url: string; description: string }[] {
  const list = [
    {
      url: serverUrl(options.publicBaseUrl),
      description: options.publicBaseUrl ? 'This environment' : 'The host that served this document',
    },
  ];
  const environments = options.environments;
  if (environments) {
    for (const [url, description] of [
      [
        serverUrl(environments.production),
        environmentDescription('Production', environments.productionOAuthHost),
      ],
      [serverUrl(environments.test), environmentDescription('Test environment', environments.testOAuthHost)],
    ] as const) {
      const same = list.find((s) => s.url === url);
      if (same) same.description = description;
      else list.push({ url, description });
    }
  }
  return list;
}

/** The component a response or request body's JSON content refers to (`''` when none). */
function componentNameOf(node: unknown): string {
  const content = (node as { content?: Record<string, { schema?: { $ref?: unknown } }> } | undefined)
    ?.content;
  const ref = content?.['application/json']?.schema?.$ref;
  return typeof ref === 'string' ? ref.slice('#/components/schemas/'.length) : '';
}

export function openApiDocument(routes: readonly Route[], options: OpenApiOptions): JsonObject {
  const registry = new OpenAPIRegistry();
  // Every named schema of the contracts but `Event` (the union of the per-type event schemas that
  // the `webhooks` entries use one by one).
  for (const [name, schema] of Object.entries(API_COMPONENTS))
    if (name !== 'Event') registry.register(name, schema);
  for (const [name, header] of Object.entries(HEADER_COMPONENTS))
    registry.registerComponent('headers', name, header);
  for (const [name, response] of Object.values(ERROR_RESPONSES))
    registry.registerComponent('responses', name, response);
  registry.registerComponent(
    'securitySchemes',
    SECURITY_SCHEME_NAME,
    oauth2SecurityScheme(options.authIssuer),
  );
  registry.registerComponent('securitySchemes', WEBHOOK_SIGNATURE_SCHEME, webhookSignatureScheme);

  const documented = new Set<string>();
  for (const route of routes) {
    const key: RouteKey = `${route.method} ${route.path}`;
    if (route.service === 'gateway') {
      if (route.path !== '/v1/openapi.json') throw new Error(`No OpenAPI description of ${key}`);
      registerDocumentOperation(registry, route);
      continue;
    }
    const spec = OPERATIONS[key];
    if (!spec) throw new Error(`No OpenAPI description of ${key}: add it to OPERATIONS`);
    registerUpstreamOperation(registry, route, spec);
    documented.add(key);
  }
  const unrouted = Object.keys(OPERATIONS).filter((key) => !documented.has(key));
  if (unrouted.length > 0) throw new Error(`OPERATIONS describes unrouted ${unrouted.join(', ')}`);

  registerEventWebhooks(registry);

  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: {
      title: API_TITLE,
      version: API_VERSION,
      description: DESCRIPTION,
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: servers(options),
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
  });
  const fixer = new NullableRefFixer(document.components?.schemas as Record<string, JsonObject>);
  for (const [name, schema] of Object.entries(API_COMPONENTS)) fixer.component(name, schema);
  for (const type of ALL_EVENT_TYPES) fixer.component(eventComponentName(type), EVENT_SCHEMAS[type]);
  // Named schemas that only an operation uses (`ApprovalPreview`, `OAuthClient`, ...), by the
  // component its success answer and its body refer to.
  const paths = document.paths as Record<string, Record<string, JsonObject>>;
  for (const route of routes) {
    const spec = OPERATIONS[`${route.method} ${route.path}`];
    const operation = paths[route.path]?.[route.method.toLowerCase()];
    if (!spec || !operation) continue;
    const success = (operation.responses as Record<string, JsonObject>)[String(spec.success.status)];
    fixer.component(componentNameOf(success), spec.success.schema);
    if (spec.body) fixer.component(componentNameOf(operation.requestBody), spec.body.schema);
  }
  simplifyForGeneratedClients(document);
  return document as unknown as JsonObject;
}
