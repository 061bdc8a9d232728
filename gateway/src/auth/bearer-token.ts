// The access token of `Authorization: Bearer <token>` (RFC 6750 section 2.1).
import { AuthenticationError } from '@ordering/errors';

const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

export function bearerTokenOf(authorization: string | undefined): string {
  if (authorization === undefined || authorization === '') {
    throw new AuthenticationError('No bearer token: send Authorization: Bearer <access token>');
  }
  const match = BEARER.exec(authorization);
  if (!match?.[1]) throw new AuthenticationError('The Authorization header does not hold a bearer token');
  return match[1];
}
