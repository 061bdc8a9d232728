// Response headers and error responses of the OpenAPI document (decisions.md "Errors", "Rate
// limits", "Idempotency"), as components that operations reference.
type JsonObject = Record<string, unknown>;

const integer = { type: 'integer', minimum: 0 };

export const HEADER_COMPONENTS: Record<string, JsonObject> = {
  'X-Request-Id': {
    description: 'Identifier of the request; equal to `error.request_id` in an error body',
    required: true,
    schema: { type: 'string' },
  },
  traceresponse: {
    description:
      'W3C Trace Context Level 2, `00-<trace id>-<span id>-<flags>`: the trace of this request, started by ' +
      'the gateway (a `traceparent` sent by the client is not continued). Quote it, or `X-Request-Id`, ' +
      'when reporting a problem.',
    schema: { type: 'string', pattern: '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$' },
  },
  'X-RateLimit-Limit': {
    description:
      "Requests per second refilled into the bucket (120): the bearer token's, or for a request " +
      "without a valid token (a 401, an unknown path asked without one) its client address's.",
    schema: integer,
  },
  'X-RateLimit-Remaining': {
    description: 'Whole requests that would pass now',
    schema: integer,
  },
  'X-RateLimit-Reset': {
    description: 'Whole seconds until the bucket is full again',
    schema: integer,
  },
  'Retry-After': {
    description: 'Whole seconds to wait before retrying (at least 1)',
    required: true,
    schema: { type: 'integer', minimum: 1 },
  },
  'WWW-Authenticate': {
    description: 'The bearer-token challenge: `Bearer error="invalid_token"`',
    required: true,
    schema: { type: 'string' },
  },
  'Idempotent-Replayed': {
    description:
      'Present, `true`, when this is the stored answer to an earlier request with the same `Idempotency-Key`',
    schema: { type: 'string', enum: ['true'] },
  },
};

const ref = (kind: 'headers' | 'responses' | 'schemas', name: string) => ({
  $ref: `#/components/${kind}/${name}`,
});

/** Headers every answer carries. */
export function commonHeaders(): Record<string, JsonObject> {
  return {
    'X-Request-Id': ref('headers', 'X-Request-Id'),
    traceresponse: ref('headers', 'traceresponse'),
    'X-RateLimit-Limit': ref('headers', 'X-RateLimit-Limit'),
    'X-RateLimit-Remaining': ref('headers', 'X-RateLimit-Remaining'),
    'X-RateLimit-Reset': ref('headers', 'X-RateLimit-Reset'),
  };
}

export function errorResponse(
  description: string,
  extraHeaders: Record<string, JsonObject> = {},
): JsonObject {
  return {
    description,
    headers: { ...commonHeaders(), ...extraHeaders },
    content: { 'application/json': { schema: ref('schemas', 'Error') } },
  };
}

const INSUFFICIENT_SCOPE = "The token lacks the operation's scope: `permission_error` / `insufficient_scope`";
const SCOPE_CHALLENGE = {
  'WWW-Authenticate': {
    description: 'When one scope would do: `Bearer error="insufficient_scope", scope="<scope>"`',
    schema: { type: 'string' },
  },
};

/** Error responses shared by many operations, by status. 409 is per operation (its codes differ). */
export const ERROR_RESPONSES = {
  400: [
    'BadRequest',
    errorResponse('The body is not JSON (or not UTF-8): `invalid_request` / `invalid_json`'),
  ],
  401: [
    'Unauthorized',
    errorResponse(
      'Missing, malformed, expired or revoked bearer token: `authentication_error` / `invalid_token`',
      { 'WWW-Authenticate': ref('headers', 'WWW-Authenticate') },
    ),
  ],
  403: ['Forbidden', errorResponse(INSUFFICIENT_SCOPE, SCOPE_CHALLENGE)],
  404: [
    'NotFound',
    errorResponse(
      "Unknown resource, or an account outside the token's reach (existence is not revealed): " +
        '`invalid_request` / `resource_missing`',
    ),
  ],
  413: ['PayloadTooLarge', errorResponse('The body is too large: `invalid_request` / `body_too_large`')],
  415: [
    'UnsupportedMediaType',
    errorResponse(
      'A body sent with another `Content-Type` than `application/json` (or `application/*+json`), ' +
        'or none, or a charset other than UTF-8: `invalid_request` / `unsupported_media_type`. ' +
        'A request without a body is not refused for its `Content-Type`.',
    ),
  ],
  422: [
    'UnprocessableEntity',
    errorResponse(
      'A field is missing or invalid: `invalid_request` / `missing_required_field` or `invalid_value` ' +
        '(or a more specific code) with `param` naming the field; `unknown_field` for a body field ' +
        'the operation does not know (request bodies accept only their documented fields: ' +
        '`additionalProperties: false`) and for a query parameter the operation does not list (a ' +
        'misspelt filter is refused, never ignored); `invalid_value` for a path parameter, query value, cursor ' +
        'or body string holding a NUL character or an unpaired UTF-16 surrogate, or a body nested ' +
        'deeper than 32 levels; or `idempotency_error` / ' +
        '`idempotency_key_reused` when the client reuses an `Idempotency-Key` with a different body ' +
        'or on another endpoint',
    ),
  ],
  429: [
    'TooManyRequests',
    errorResponse(
      "Over the rate limit of the bearer token (without a valid token: of the client address's bucket): " +
        '`rate_limit_error` / `rate_limit_exceeded`',
      {
        'Retry-After': ref('headers', 'Retry-After'),
      },
    ),
  ],
  500: ['InternalError', errorResponse('A fault of the service: `api_error` / `internal_error`')],
  503: [
    'ServiceUnavailable',
    errorResponse(
      'A service behind the gateway, or one it relies on, is down: `api_error` / `service_unavailable`; ' +
        'retry after `Retry-After` seconds (with the same `Idempotency-Key` for a creation)',
      { 'Retry-After': ref('headers', 'Retry-After') },
    ),
  ],
  504: [
    'GatewayTimeout',
    errorResponse('A service behind the gateway did not answer in time: `api_error` / `upstream_timeout`'),
  ],
} as const satisfies Record<number, readonly [string, JsonObject]>;

export type SharedErrorStatus = keyof typeof ERROR_RESPONSES;

export function errorResponseRef(status: SharedErrorStatus): { $ref: string } {
  return ref('responses', ERROR_RESPONSES[status][0]);
}

/**
 * A 403 of an operation that refuses some callers for more than the scope: the shared 403's
 * `insufficient_scope` and, each with when it is answered, this operation's own `permission_error` codes.
 */
export function forbiddenResponse(cases: { code: string; when: string }[]): JsonObject {
  const own = cases.map((c) => `\`permission_error\` / \`${c.code}\` ${c.when}`).join('; or ');
  return errorResponse(`${INSUFFICIENT_SCOPE}; or ${own}`, SCOPE_CHALLENGE);
}

/** A 409 with the codes this operation can answer (`type` / `code` pairs). */
export function conflictResponse(cases: { type: string; code: string }[]): JsonObject {
  const listed = cases.map((c) => `\`${c.type}\` / \`${c.code}\``).join(', or ');
  return errorResponse(`State conflict: ${listed}`);
}
