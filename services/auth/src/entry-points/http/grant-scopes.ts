// What a grant records when the shopper allows a request (or a first-party client skips consent):
// the requested scopes that the shopper's roles allow (decisions.md "OAuth"); the others are left
// out, not refused, and the token response's `scope` says what was granted.
// The provider counts every configured scope as an OpenID scope, so all of them go there; the API
// audience's resource scopes are those an access token may carry, the OpenID ones included so
// that userinfo accepts an API access token with `openid`.
import type { Grant } from 'oidc-provider';
import { API_SCOPES, OIDC_SCOPES, scopesAllowedForRoles, splitScopes } from '../../domain/scopes';

/** Scopes an access token for the API audience may carry. */
export const RESOURCE_SCOPES: string[] = [...OIDC_SCOPES, ...API_SCOPES];

/**
 * Scopes a user token (code and refresh flows) may carry: `offline_access` too, so that its `scope`
 * and the token response's say it was granted (refresh tokens are issued with or without it).
 */
export const USER_RESOURCE_SCOPES: string[] = [...RESOURCE_SCOPES, 'offline_access'];

export function grantRequestedScopes(
  grant: Grant,
  scope: string | undefined,
  audience: string,
  roles: readonly string[],
): void {
  const allowed = scopesAllowedForRoles(roles);
  const requested = splitScopes(scope).filter((s) => allowed.has(s));
  if (requested.length) grant.addOIDCScope(requested.join(' '));
  const resource = requested.filter((s) => USER_RESOURCE_SCOPES.includes(s));
  if (resource.length) grant.addResourceScope(audience, resource.join(' '));
}
