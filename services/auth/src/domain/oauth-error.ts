// An OAuth error as RFC 6749 section 5.2 renders it: `{ error, error_description }`.
export class OAuthError extends Error {
  constructor(
    readonly status: number,
    readonly error: string,
    readonly description: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(description);
    this.name = 'OAuthError';
  }
}

export function invalidClient(issuer: string, description = 'client authentication failed'): OAuthError {
  return new OAuthError(401, 'invalid_client', description, {
    'WWW-Authenticate': `Basic realm="${issuer}"`,
  });
}
