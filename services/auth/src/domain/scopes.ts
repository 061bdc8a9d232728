// The scopes of the spec. `openid`, `profile` and `email` are OpenID Connect scopes; the others
// are API scopes and are granted on the API audience's access tokens.
export const OIDC_SCOPES = ['openid', 'profile', 'email'] as const;
export const API_SCOPES = [
  'orders:read',
  'orders:write',
  'catalog:read',
  'users:read',
  'users:write',
  'admin:all',
] as const;
export const ALL_SCOPES: string[] = [...OIDC_SCOPES, 'offline_access', ...API_SCOPES];

export function isKnownScope(scope: string): boolean {
  return ALL_SCOPES.includes(scope);
}

/** Space-separated scope string as a list (empty entries dropped). */
export function splitScopes(scope: string | undefined): string[] {
  return (scope ?? '').split(' ').filter(Boolean);
}

/**
 * What a shopper's roles allow a user token to carry (decisions.md "OAuth"): shoppers and approvers
 * at most the ordering scopes and the OpenID ones; only admins the user management and `admin:all`.
 * Client-credentials tokens are not user tokens: the client's registered scopes bound them.
 */
export const SHOPPER_SCOPES: readonly string[] = [
  ...OIDC_SCOPES,
  'offline_access',
  'orders:read',
  'orders:write',
  'catalog:read',
];

export function scopesAllowedForRoles(roles: readonly string[]): ReadonlySet<string> {
  return new Set(roles.includes('admin') ? ALL_SCOPES : SHOPPER_SCOPES);
}

/**
 * The requested scopes a client may be granted: those among its allowed ones (decisions.md "OAuth":
 * a user token's scopes are the client's allowed scopes ∩ the requested ones ∩ what the user's roles
 * allow). The others, unknown scopes included, are left out, not refused.
 */
export function scopesAllowedForClient(requested: readonly string[], allowed: readonly string[]): string[] {
  return requested.filter((s) => allowed.includes(s));
}
