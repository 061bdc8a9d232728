// What a grant records when the shopper allows a request (or a first-party client skips consent).
// The provider counts every configured scope as an OpenID scope, so all of them go there; the API
// audience's resource scopes are those an access token may carry, the OpenID ones included so
// that userinfo accepts an API access token with `openid`.
import type { Grant } from 'oidc-provider';
import { API_SCOPES, OIDC_SCOPES, splitScopes } from '../../domain/scopes';

/** Scopes an access token for the API audience may carry. */
export const RESOURCE_SCOPES: string[] = [...OIDC_SCOPES, ...API_SCOPES];

export function grantRequestedScopes(grant: Grant, scope: string | undefined, audience: string): void {
  const requested = splitScopes(scope);
  if (requested.length) grant.addOIDCScope(requested.join(' '));
  const resource = requested.filter((s) => RESOURCE_SCOPES.includes(s));
  if (resource.length) grant.addResourceScope(audience, resource.join(' '));
}
