// The client part of a user token's scope rule (decisions.md "OAuth"): a scope the authorization
// request asks for that the client may not use (or that does not exist) is left out of the request
// before oidc-provider reads it, so the sign-in goes on and the token response's `scope` says what
// was granted. oidc-provider would refuse the whole request with invalid_scope. When none of the
// requested scopes is left, the request goes on unchanged and that invalid_scope stands: a grant of
// nothing would give a token without a `scope`. (The roles' part is applied to the grant,
// grant-scopes.ts; client credentials keep refusing a scope beyond the client's with invalid_scope.)
import type Provider from 'oidc-provider';
import { scopesAllowedForClient, splitScopes } from '../../domain/scopes';

type ProviderMiddleware = Parameters<Provider['use']>[0];
type ProviderContext = Parameters<ProviderMiddleware>[0];

/** A provider middleware bounding the scopes of requests to the authorization endpoint at `path`. */
export function authorizationScopeBound(provider: Provider, path: string): ProviderMiddleware {
  return async (ctx, next) => {
    if (ctx.path === path) await boundRequestedScopes(provider, ctx);
    await next();
  };
}

async function boundRequestedScopes(provider: Provider, ctx: ProviderContext): Promise<void> {
  // GET carries the request in the query, POST in the form, which the input guard already parsed.
  const form = ctx.method === 'POST' ? (ctx.req as { body?: Record<string, unknown> }).body : undefined;
  const params: Record<string, unknown> = form ?? ctx.query;
  const { client_id: clientId, scope } = params;
  if (typeof clientId !== 'string' || typeof scope !== 'string') return;
  // An unknown, disabled or unreadable client: the provider answers the request itself.
  const client = await provider.Client.find(clientId).catch(() => undefined);
  if (!client?.scope) return;
  const requested = splitScopes(scope);
  const bounded = scopesAllowedForClient(requested, splitScopes(client.scope));
  if (bounded.length === 0 || bounded.length === requested.length) return;
  if (form) form.scope = bounded.join(' ');
  else ctx.query = { ...ctx.query, scope: bounded.join(' ') };
}
