import {
  AuthenticationError,
  ConflictError,
  IdempotencyError,
  MissingFieldError,
  RateLimitError,
  errorBody,
  toAppError,
} from '../src';

describe('errors by meaning', () => {
  it('a missing field is 422 invalid_request/missing_required_field naming the param', () => {
    const err = new MissingFieldError('shipping_address.postal_code');
    expect(err.status).toBe(422);
    expect(errorBody(err, 'req_1')).toEqual({
      error: {
        type: 'invalid_request',
        code: 'missing_required_field',
        message: 'Missing required field: shipping_address.postal_code',
        param: 'shipping_address.postal_code',
        request_id: 'req_1',
      },
    });
  });

  it('an unknown error becomes a 500 internal_error whose message reveals nothing', () => {
    const err = toAppError(new Error('connection string postgres://secret@db'));
    expect(err.status).toBe(500);
    expect(err.code).toBe('internal_error');
    expect(JSON.stringify(errorBody(err, 'r'))).not.toContain('secret');
  });

  it('authentication errors carry the bearer challenge', () => {
    const err = new AuthenticationError();
    expect([err.status, err.type, err.code]).toEqual([401, 'authentication_error', 'invalid_token']);
    expect(err.headers['WWW-Authenticate']).toBe('Bearer error="invalid_token"');
  });

  it('rate limit errors say when to retry, in whole seconds, at least one', () => {
    expect(new RateLimitError(0.2).headers['Retry-After']).toBe('1');
    expect(new RateLimitError(2.4).headers['Retry-After']).toBe('3');
  });

  it('idempotency errors use the decided statuses', () => {
    expect(new IdempotencyError('idempotency_key_reused', 'x').status).toBe(422);
    expect(new IdempotencyError('idempotency_key_reused', 'x').type).toBe('idempotency_error');
    expect(new IdempotencyError('idempotency_key_in_use', 'x').status).toBe(409);
    expect(new ConflictError('login_taken', 'taken', 'login').param).toBe('login');
  });

  it('omits param when there is none', () => {
    expect(errorBody(toAppError(new AuthenticationError()), 'r').error).not.toHaveProperty('param');
  });
});

describe('what an error quotes back', () => {
  it('a message or param quoting a huge input is cut to 500 characters, marked with an ellipsis', () => {
    const huge = 'x'.repeat(100_000);
    const body = errorBody(new MissingFieldError(`steps[0].${huge}`), 'r');
    expect(body.error.message).toHaveLength(501);
    expect(body.error.message.endsWith('…')).toBe(true);
    expect(body.error.param).toHaveLength(501);
    expect(body.error.param!.startsWith('steps[0].xxx')).toBe(true);
  });

  it('a cut never splits a character in two (no lone surrogate)', () => {
    const body = errorBody(new MissingFieldError(`${'a'.repeat(473)}${'😀'.repeat(100)}`), 'r');
    expect(body.error.message.isWellFormed()).toBe(true);
    expect(body.error.message.endsWith('…')).toBe(true);
  });

  it('a message of ordinary length is left as it is', () => {
    expect(errorBody(new MissingFieldError('po_number'), 'r').error.message).toBe(
      'Missing required field: po_number',
    );
  });
});
