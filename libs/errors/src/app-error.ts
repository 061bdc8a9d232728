// Errors by meaning. Domain code throws these; one HTTP middleware (libs/http) maps them to the
// API's error body. Anything that is not an AppError is a bug and renders as a 500 without detail.

/** `error.type` values of the API error body. */
export type ErrorType =
  | 'invalid_request'
  | 'authentication_error'
  | 'permission_error'
  | 'rate_limit_error'
  | 'idempotency_error'
  | 'api_error';

export interface AppErrorOptions {
  /** Offending field path, e.g. `items[2].item_code`. */
  param?: string;
  /** Extra response headers (e.g. `WWW-Authenticate`, `Retry-After`). */
  headers?: Record<string, string>;
  cause?: unknown;
  /** Extra members of the body's `error` object (e.g. every problem of a refused import). */
  details?: Record<string, unknown>;
}

export class AppError extends Error {
  readonly status: number;
  readonly type: ErrorType;
  readonly code: string;
  readonly param: string | undefined;
  readonly headers: Record<string, string>;
  readonly details: Record<string, unknown> | undefined;

  constructor(status: number, type: ErrorType, code: string, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.status = status;
    this.type = type;
    this.code = code;
    this.param = options.param;
    this.headers = options.headers ?? {};
    this.details = options.details;
  }
}

/** 422 `missing_required_field`. */
export class MissingFieldError extends AppError {
  constructor(param: string, message = `Missing required field: ${param}`) {
    super(422, 'invalid_request', 'missing_required_field', message, { param });
  }
}

/** 422 `invalid_value` (wrong type or value), or another 422 code such as `invalid_item`. */
export class InputError extends AppError {
  constructor(message: string, param?: string, code = 'invalid_value') {
    super(422, 'invalid_request', code, message, param === undefined ? {} : { param });
  }
}

/** 400 for a body that is not JSON (`invalid_json`) or another malformed request. */
export class BadRequestError extends AppError {
  constructor(message: string, code = 'invalid_json') {
    super(400, 'invalid_request', code, message);
  }
}

/** 404 `resource_missing`: unknown resources and those outside the caller's reach alike. */
export class NotFoundError extends AppError {
  constructor(message = 'No such resource', param?: string) {
    super(404, 'invalid_request', 'resource_missing', message, param === undefined ? {} : { param });
  }
}

/** 409 state conflict with a specific code (`order_not_cancellable`, `login_taken`, ...). */
export class ConflictError extends AppError {
  constructor(code: string, message: string, param?: string) {
    super(409, 'invalid_request', code, message, param === undefined ? {} : { param });
  }
}

/** 401 `invalid_token`, with the RFC 6750 challenge. */
export class AuthenticationError extends AppError {
  constructor(message = 'The bearer token is missing, malformed, expired or revoked') {
    super(401, 'authentication_error', 'invalid_token', message, {
      headers: { 'WWW-Authenticate': 'Bearer error="invalid_token"' },
    });
  }
}

/** 403 `insufficient_scope`. */
export class NotAllowedError extends AppError {
  constructor(message: string, code = 'insufficient_scope', headers?: Record<string, string>) {
    super(403, 'permission_error', code, message, headers ? { headers } : {});
  }
}

/**
 * 429 `rate_limit_exceeded` with `Retry-After` in whole seconds (at least 1); the message names the
 * bucket that ran dry: the bearer token's, or the client address's (a request without a valid token).
 */
export class RateLimitError extends AppError {
  constructor(retryAfterSeconds: number, bucket: 'token' | 'address' = 'token') {
    const from = bucket === 'token' ? 'for this token' : 'from this address';
    super(429, 'rate_limit_error', 'rate_limit_exceeded', `Too many requests ${from}; slow down`, {
      headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterSeconds))) },
    });
  }
}

/** 422 `idempotency_key_reused` or 409 `idempotency_key_in_use`. */
export class IdempotencyError extends AppError {
  constructor(code: 'idempotency_key_reused' | 'idempotency_key_in_use', message: string) {
    super(
      code === 'idempotency_key_reused' ? 422 : 409,
      code === 'idempotency_key_reused' ? 'idempotency_error' : 'invalid_request',
      code,
      message,
    );
  }
}

/** 413 `body_too_large`. */
export class PayloadTooLargeError extends AppError {
  constructor(message = 'The request body is too large') {
    super(413, 'invalid_request', 'body_too_large', message);
  }
}

/**
 * 415 `unsupported_media_type`: a request body in a media type the endpoint does not read (the API
 * reads JSON only), or in a charset other than UTF-8.
 */
export class UnsupportedMediaTypeError extends AppError {
  constructor(message = 'The request body must be JSON, sent with Content-Type: application/json') {
    super(415, 'invalid_request', 'unsupported_media_type', message);
  }
}

/** Seconds a 503 asks the client to wait: a restarting pod or a failing-over database is back soon. */
export const UNAVAILABLE_RETRY_AFTER_SECONDS = 1;

/**
 * 503 `service_unavailable` (with `Retry-After`) / 504 `upstream_timeout`: a dependency is down or
 * slow. A 504 has no `Retry-After`: the request may have been carried out, and only the client
 * knows whether it is safe to send again (with its `Idempotency-Key`, it is).
 */
export class UnavailableError extends AppError {
  constructor(
    message = 'A service behind the API is unavailable; retry later',
    code: 'service_unavailable' | 'upstream_timeout' = 'service_unavailable',
  ) {
    super(
      code === 'upstream_timeout' ? 504 : 503,
      'api_error',
      code,
      message,
      code === 'upstream_timeout'
        ? {}
        : { headers: { 'Retry-After': String(UNAVAILABLE_RETRY_AFTER_SECONDS) } },
    );
  }
}

/** 500 `internal_error`: what every unexpected error becomes. */
export class InternalError extends AppError {
  constructor(cause?: unknown) {
    super(500, 'api_error', 'internal_error', 'An internal error occurred; it has been logged', { cause });
  }
}
