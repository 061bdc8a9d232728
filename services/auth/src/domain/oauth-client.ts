// A registered OAuth client and the rules of its registration.
import { InputError } from '@ordering/errors';
import { secretMetadata } from './client-secret-policy';
import { isKnownScope } from './scopes';

/**
 * - `service`: server-to-server, client credentials only (confidential).
 * - `web`: authorization code + refresh token, confidential (secret kept on a server).
 * - `native`: authorization code + refresh token, public (no secret; PKCE protects the code).
 */
export const CLIENT_TYPES = ['service', 'web', 'native'] as const;
export type ClientType = (typeof CLIENT_TYPES)[number];
export type ClientStatus = 'active' | 'disabled';

export interface OAuthClient {
  clientId: string;
  name: string;
  type: ClientType;
  /** First-party clients skip the consent screen. */
  firstParty: boolean;
  redirectUris: string[];
  /** The scopes it may ask for. */
  scopes: string[];
  /** The customer account and integration login it acts for (client credentials tokens carry them). */
  custId: string;
  login: string;
  /** HMAC-SHA-256 of the secret (hex); null for public clients. */
  secretHash: string | null;
  status: ClientStatus;
  createdAt: Date;
  /** When the current secret was issued; it falls due 180 days later (client-secret-policy.ts). */
  secretRotatedAt: Date | null;
  /** The secret replaced by the last rotation through the API, accepted until its expiry. */
  previousSecretHash: string | null;
  previousSecretExpiresAt: Date | null;
  /** A platform client (the developer portal): signs in users of every account, not one tree. */
  allAccounts: boolean;
  disabledAt: Date | null;
}

export interface ClientRegistration {
  name: string;
  type: ClientType;
  firstParty?: boolean;
  redirectUris?: string[];
  scopes: string[];
  custId: string;
  login: string;
  /** Chosen id (seeders, tests); default a random `cl_...`. */
  clientId?: string;
  /** A platform client that signs in users of every account (operator CLI only). */
  allAccounts?: boolean;
}

/** Validates a registration; throws InputError naming the offending field. */
export function validateRegistration(input: ClientRegistration): void {
  if (!input.name.trim()) throw new InputError('name must not be empty', 'name');
  if (!CLIENT_TYPES.includes(input.type))
    throw new InputError(`type must be one of ${CLIENT_TYPES.join(', ')}`, 'type');
  if (!input.custId.trim()) throw new InputError('cust_id must not be empty', 'cust_id');
  if (!input.login.trim()) throw new InputError('login must not be empty', 'login');
  if (input.clientId !== undefined && !/^[A-Za-z0-9._-]{3,100}$/.test(input.clientId)) {
    throw new InputError('client_id: letters, digits, . _ - only, 3 to 100 characters', 'client_id');
  }
  if (input.scopes.length === 0) throw new InputError('at least one scope is needed', 'scopes');
  input.scopes.forEach((scope, i) => {
    if (!isKnownScope(scope)) throw new InputError(`unknown scope ${scope}`, `scopes[${i}]`);
  });
  const redirectUris = input.redirectUris ?? [];
  if (input.type === 'service' && redirectUris.length > 0) {
    throw new InputError('a service client has no redirect URIs', 'redirect_uris');
  }
  if (input.type !== 'service' && redirectUris.length === 0) {
    throw new InputError('a web or native client needs at least one redirect URI', 'redirect_uris');
  }
  redirectUris.forEach((uri, i) => {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      throw new InputError(`not a URL: ${uri}`, `redirect_uris[${i}]`);
    }
    const loopback = url.hostname === '127.0.0.1' || url.hostname === '[::1]' || url.hostname === 'localhost';
    if (url.protocol !== 'https:' && !(url.protocol === 'http:' && loopback) && input.type !== 'native') {
      throw new InputError('redirect URIs must be https (http only for loopback)', `redirect_uris[${i}]`);
    }
    if (url.hash) throw new InputError('redirect URIs must not have a fragment', `redirect_uris[${i}]`);
  });
}

/** The client as oidc-provider's client metadata (secret = its HMAC, see client-secret.ts). */
export function toProviderMetadata(client: OAuthClient, now: Date): Record<string, unknown> {
  const codeFlow = client.type !== 'service';
  return {
    client_id: client.clientId,
    client_name: client.name,
    ...secretMetadata(client, now),
    token_endpoint_auth_method: client.type === 'native' ? 'none' : 'client_secret_basic',
    grant_types: codeFlow ? ['authorization_code', 'refresh_token'] : ['client_credentials'],
    response_types: codeFlow ? ['code'] : [],
    redirect_uris: client.redirectUris,
    scope: client.scopes.join(' '),
    first_party: client.firstParty,
    all_accounts: client.allAccounts,
    cust_id: client.custId,
    login: client.login,
    ...(client.type === 'native' ? { application_type: 'native' } : {}),
  };
}
