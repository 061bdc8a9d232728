// The OAuth 2.0 security scheme of the document: the spec's flows on the auth host and every scope
// of the spec with what it grants.
export const SECURITY_SCHEME_NAME = 'oauth2';

export const SCOPE_DESCRIPTIONS: Record<string, string> = {
  openid: 'ID token; required for OpenID Connect flows',
  profile: 'Name, employee ID, department, cost center',
  email: 'Email address and verification status',
  'orders:read': 'Read own orders and history',
  'orders:write': 'Create and cancel orders',
  'catalog:read': 'Read catalog, pricing, inventory',
  'users:read': 'Read shopper records in the customer account (user tokens: admins only)',
  'users:write': 'Create, update, deprovision shopper records (user tokens: admins only)',
  'admin:all':
    'Full administrative access (customer admins only); implies every other scope (user tokens: admins only)',
};

/** The OpenID Connect scopes: user tokens only (client credentials asking for them is invalid_scope). */
const USER_ONLY_SCOPES = new Set(['openid', 'profile', 'email']);

/** The code flow's scopes: the spec's, and offline_access, which the grant lists when asked for. */
const CODE_FLOW_SCOPES: Record<string, string> = {
  ...SCOPE_DESCRIPTIONS,
  offline_access:
    'Listed in the grant when asked for and allowed; refresh tokens (30 days, rotated) are issued to every code-flow client with or without it',
};

/** The client credentials flow's scopes: the API scopes, within the client's registered ones. */
const CLIENT_CREDENTIALS_SCOPES: Record<string, string> = Object.fromEntries(
  Object.entries(SCOPE_DESCRIPTIONS).filter(([scope]) => !USER_ONLY_SCOPES.has(scope)),
);

/** What a user's roles allow a user token to carry (decisions.md "OAuth"); shown in the document. */
export const SCOPES_BY_ROLE =
  'A user token (authorization code flow) carries the scopes requested, allowed for the client and ' +
  "allowed by the user's roles: `shopper` and `approver` at most `openid profile email " +
  'offline_access orders:read orders:write catalog:read`; `admin` every scope, `users:read ' +
  'users:write admin:all` included. Requested scopes beyond that are left out of the grant (the ' +
  "token response's `scope` says what was granted), not refused. A client signs in only users of " +
  "its own account's tree. Client credentials tokens carry the requested scopes within the " +
  "client's registered ones (all of them when `scope` is omitted).";

/** `authIssuer` is the OAuth host origin (AUTH_ISSUER). */
export function oauth2SecurityScheme(authIssuer: string) {
  const issuer = authIssuer.replace(/\/+$/, '');
  return {
    type: 'oauth2' as const,
    description:
      'Bearer access tokens (RS256 JWTs) of the OAuth 2.0 server. Authorization Code requires PKCE ' +
      '(S256). An operation lists the scopes of which the token needs any one; `admin:all` implies ' +
      'every scope for its own account tree. ' +
      "The flows' URLs are the OAuth host of the environment that served this document. Production " +
      'and test each have their own OAuth host, and a token is accepted only by the API of the ' +
      "environment whose OAuth host issued it: each server's description names its OAuth host. " +
      SCOPES_BY_ROLE,
    flows: {
      authorizationCode: {
        authorizationUrl: `${issuer}/oauth/authorize`,
        tokenUrl: `${issuer}/oauth/token`,
        refreshUrl: `${issuer}/oauth/token`,
        scopes: CODE_FLOW_SCOPES,
      },
      // No refreshUrl: a client credentials grant issues no refresh token.
      clientCredentials: {
        tokenUrl: `${issuer}/oauth/token`,
        scopes: CLIENT_CREDENTIALS_SCOPES,
      },
    },
  };
}

/** Any one of `scopes` suffices: one security requirement object per scope. */
export function securityRequirements(scopes: readonly string[]): Record<string, string[]>[] {
  return scopes.map((scope) => ({ [SECURITY_SCHEME_NAME]: [scope] }));
}
