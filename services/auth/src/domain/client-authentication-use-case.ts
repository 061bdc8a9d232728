// Client authentication for the endpoints this service answers itself (introspection and
// revocation of JWT access tokens): HTTP Basic or client_secret_post, secret checked against its
// HMAC (the current secret, or the previous one for 24 h after a rotation), disabled clients and
// secrets past their due date refused.
import type { ClientRepository } from '../data-access/client-repository';
import { secretMatches } from './client-secret';
import { EXPIRED_SECRET_DESCRIPTION, acceptedSecretHashes } from './client-secret-policy';
import type { OAuthClient } from './oauth-client';
import { OAuthError, invalidClient } from './oauth-error';

export interface ClientCredentialsInput {
  authorization: string | undefined;
  clientId: string | undefined;
  clientSecret: string | undefined;
}

function fromBasic(header: string): { id: string; secret: string } {
  const [scheme, value] = header.split(' ');
  if (scheme?.toLowerCase() !== 'basic' || !value)
    throw new OAuthError(400, 'invalid_request', 'invalid authorization header value format');
  const decoded = Buffer.from(value, 'base64').toString('utf8');
  const i = decoded.indexOf(':');
  if (i < 0) throw new OAuthError(400, 'invalid_request', 'invalid authorization header value format');
  try {
    return { id: decodeURIComponent(decoded.slice(0, i)), secret: decodeURIComponent(decoded.slice(i + 1)) };
  } catch {
    throw new OAuthError(400, 'invalid_request', 'client_id and client_secret are not properly encoded');
  }
}

/**
 * The client id a request names (HTTP Basic or the `client_id` form field), whether or not its
 * secret is right; undefined when it names none or the Basic header cannot be read.
 */
export function presentedClientId(input: ClientCredentialsInput): string | undefined {
  if (input.authorization === undefined) return input.clientId || undefined;
  try {
    return fromBasic(input.authorization).id || undefined;
  } catch {
    return undefined;
  }
}

export async function authenticateClient(
  deps: { clients: ClientRepository; secretKey: string; issuer: string; now?: () => Date },
  input: ClientCredentialsInput,
): Promise<OAuthClient> {
  let id: string | undefined;
  let secret: string | undefined;
  if (input.authorization !== undefined) {
    if (input.clientSecret !== undefined)
      throw new OAuthError(
        400,
        'invalid_request',
        'client authentication must only be provided using one mechanism',
      );
    ({ id, secret } = fromBasic(input.authorization));
  } else {
    id = input.clientId;
    secret = input.clientSecret;
  }
  // RFC 6749 5.2: "no client authentication included" is invalid_client, as the provider answers.
  if (!id) throw invalidClient(deps.issuer, 'no client authentication included');
  const client = await deps.clients.find(id);
  if (!client || client.status !== 'active') throw invalidClient(deps.issuer, 'invalid client');
  if (client.type === 'native') {
    if (secret) throw invalidClient(deps.issuer, 'this client has no secret');
    return client;
  }
  const accepted = acceptedSecretHashes(client, deps.now?.() ?? new Date());
  if (client.secretHash && accepted.length === 0)
    throw invalidClient(deps.issuer, EXPIRED_SECRET_DESCRIPTION);
  if (!secret || !accepted.some((hash) => secretMatches(deps.secretKey, secret, hash)))
    throw invalidClient(deps.issuer, 'invalid secret provided');
  return client;
}
