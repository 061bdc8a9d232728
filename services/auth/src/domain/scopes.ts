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
