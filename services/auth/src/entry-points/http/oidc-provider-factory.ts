// oidc-provider configured to the contract: endpoints under /oauth/*, PKCE S256 for every client,
// code / client credentials / refresh token grants (refresh tokens rotate, reuse revokes the
// grant), RS256 JWT access tokens for the API audience with exactly the spec's claims (each one
// issued under a grant is recorded under it, so that revoking the grant denies it), first-party
// clients without a consent screen.
import type { Knex } from 'knex';
import Provider, {
  errors,
  interactionPolicy,
  type Account,
  type Adapter,
  type AdapterPayload,
  type ClientMetadata,
  type Configuration,
  type KoaContextWithOIDC,
  type JWK,
} from 'oidc-provider';
import { UNAVAILABLE_RETRY_AFTER_SECONDS, isTransientInfrastructureError } from '@ordering/errors';
import type { Logger } from '@ordering/http';
import type { AuthConfig } from '../../config';
import type { ClientRepository } from '../../data-access/client-repository';
import type { CustomersClient, ShopperRecord } from '../../data-access/customers-client';
import { OidcPayloadRepository } from '../../data-access/oidc-payload-repository';
import { toProviderMetadata } from '../../domain/oauth-client';
import { integrationUserDeactivated } from '../../domain/integration-subject';
import { recordGrantToken, revokeGrant, type RevocationDeps } from '../../domain/revocation-use-case';
import { inClientTree, subjectInClientTree } from '../../domain/client-tree';
import { ALL_SCOPES, scopesAllowedForRoles, splitScopes } from '../../domain/scopes';
import { parseShopperSubject, shopperSubject } from '../../domain/subject';
import { hashClientSecret, secretMatches } from '../../domain/client-secret';
import { EXPIRED_SECRET_DESCRIPTION } from '../../domain/client-secret-policy';
import { TOKEN_TTL } from '../../domain/token-lifetimes';
import { emailClaims } from '../../domain/email-claims';
import { profileClaims } from '../../domain/profile-claims';
import { errorPage } from './sign-in-views';
import { RESOURCE_SCOPES, USER_RESOURCE_SCOPES, grantRequestedScopes } from './grant-scopes';
import { authorizationScopeBound } from './authorization-scope-bound';
import { platformMetrics } from '@ordering/telemetry';

export interface OidcProviderDeps {
  config: AuthConfig;
  knex: Knex;
  clients: ClientRepository;
  customers: CustomersClient;
  /** Private signing JWKs, the active one first. */
  signingKeys: JWK[];
  revocation: RevocationDeps;
  logger: Logger;
}

/** Loads registered clients from the database for the provider; disabled clients do not exist. */
class ClientAdapter implements Adapter {
  constructor(private readonly clients: ClientRepository) {}
  async find(id: string): Promise<AdapterPayload | undefined> {
    const client = await this.clients.find(id);
    if (!client || client.status !== 'active') return undefined;
    return toProviderMetadata(client, new Date()) as AdapterPayload;
  }
  upsert(): Promise<void> {
    throw new Error('clients are registered by the operator CLI');
  }
  findByUid(): Promise<undefined> {
    return Promise.resolve(undefined);
  }
  findByUserCode(): Promise<undefined> {
    return Promise.resolve(undefined);
  }
  consume(): Promise<void> {
    return Promise.resolve();
  }
  destroy(): Promise<void> {
    return Promise.resolve();
  }
  revokeByGrantId(): Promise<void> {
    return Promise.resolve();
  }
}

/** The provider's view of a shopper: its claims by granted scope. */
export interface ShopperAccount extends Account {
  user: ShopperRecord;
}

function shopperAccount(user: ShopperRecord): ShopperAccount {
  const sub = shopperSubject(user.cust_id, user.login);
  return {
    accountId: sub,
    user,
    claims: () => ({
      sub,
      ...profileClaims(user),
      ...emailClaims(user.email),
    }),
  };
}

/** The shopper of `sub` if it exists and is active; undefined otherwise (no sign-in, no token). */
export async function findShopper(
  customers: CustomersClient,
  sub: string,
): Promise<ShopperAccount | undefined> {
  const parts = parseShopperSubject(sub);
  if (!parts) return undefined;
  const user = await customers.findUser(parts.login);
  if (!user || user.status !== 'active' || user.cust_id.toLowerCase() !== parts.custIdLower) return undefined;
  return shopperAccount(user);
}

function clientExtra(client: unknown, name: 'cust_id' | 'login' | 'first_party'): unknown {
  return (client as Record<string, unknown> | undefined)?.[name];
}

/** Whether two clients were issued to the same customer account (`mayIntrospect` of token-routes.ts). */
function sameCustomerAccount(a: unknown, b: unknown): boolean {
  const accountOf = (c: unknown) => {
    const custId = clientExtra(c, 'cust_id');
    return typeof custId === 'string' && custId !== '' ? custId.toLowerCase() : undefined;
  };
  const custId = accountOf(a);
  return custId !== undefined && custId === accountOf(b);
}

/**
 * The provider's interaction policy plus one check: a session of a shopper outside the client's
 * account tree does not sign in to that client; the sign-in page is shown again (where such a
 * shopper is refused) instead. Asked with `prompt=none`, the client gets what a browser without a
 * session gets (`login_required`, the provider's own words): naming the reason would tell it that
 * someone of another account is signed in.
 */
function interactionPolicyFor(customers: CustomersClient): interactionPolicy.Prompt[] {
  const policy = interactionPolicy.base();
  const login = policy.get('login');
  if (!login) throw new Error("oidc-provider's base policy has no login prompt");
  login.checks.add(
    new interactionPolicy.Check(
      'outside_client_tree',
      'End-User authentication is required',
      'login_required',
      async (ctx) => {
        const sub = ctx.oidc.session?.accountId;
        if (!sub || !ctx.oidc.client) return interactionPolicy.Check.NO_NEED_TO_PROMPT;
        return (await subjectInClientTree(customers, ctx.oidc.client, sub))
          ? interactionPolicy.Check.NO_NEED_TO_PROMPT
          : interactionPolicy.Check.REQUEST_PROMPT;
      },
    ),
  );
  return policy;
}

export function createOidcProvider(deps: OidcProviderDeps): Provider {
  const { config } = deps;
  const audience = config.API_AUDIENCE;

  const configuration: Configuration = {
    // A destroyed grant (refresh token revoked or replayed) has its access tokens denied at the
    // gateway before the request that revoked it is answered.
    adapter: (name: string) =>
      name === 'Client'
        ? new ClientAdapter(deps.clients)
        : new OidcPayloadRepository(deps.knex, name, undefined, async (grantId) => {
            await revokeGrant(deps.revocation, grantId);
          }),
    clients: [],
    jwks: { keys: deps.signingKeys },
    cookies: {
      keys: config.COOKIE_KEYS,
      long: { signed: true, httpOnly: true, sameSite: 'lax' },
      short: { signed: true, httpOnly: true, sameSite: 'lax' },
    },
    routes: {
      authorization: '/oauth/authorize',
      token: '/oauth/token',
      introspection: '/oauth/introspect',
      revocation: '/oauth/revoke',
      userinfo: '/oauth/userinfo',
      jwks: '/oauth/jwks.json',
      end_session: '/oauth/logout',
      code_verification: '/oauth/device',
      device_authorization: '/oauth/device/auth',
      registration: '/oauth/register',
      backchannel_authentication: '/oauth/backchannel',
      challenge: '/oauth/challenge',
    },
    interactions: {
      policy: interactionPolicyFor(deps.customers),
      url: (_ctx, interaction) => `/oauth/interaction/${interaction.uid}`,
    },
    responseTypes: ['code'],
    scopes: ALL_SCOPES,
    claims: {
      openid: ['sub'],
      profile: ['name', 'employee_id', 'department', 'cost_center'],
      email: ['email', 'email_verified'],
    },
    clientDefaults: {
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
      id_token_signed_response_alg: 'RS256',
    },
    clientAuthMethods: ['client_secret_basic', 'client_secret_post', 'none'],
    extraClientMetadata: {
      properties: [
        'first_party',
        'all_accounts',
        'cust_id',
        'login',
        'previous_client_secret',
        'previous_client_secret_expires_at',
      ],
    },
    enabledJWA: {
      idTokenSigningAlgValues: ['RS256'],
      userinfoSigningAlgValues: ['RS256'],
      introspectionSigningAlgValues: ['RS256'],
    },
    pkce: { required: () => true },
    // redirect_uri is a required parameter of both the authorization and the token request (spec
    // "Authorization Code flow"; RFC 6749 4.1.3: required at the token endpoint when the
    // authorization request had it). The provider's default filled in a client's only registered
    // URI on both sides, so a code was exchanged without it.
    allowOmittingSingleRegisteredRedirectUri: false,
    rotateRefreshToken: true,
    conformIdTokenClaims: false,
    expiresWithSession: () => Promise.resolve(false),
    issueRefreshToken: (_ctx, client) => Promise.resolve(client.grantTypeAllowed('refresh_token')),
    ttl: {
      AccessToken: TOKEN_TTL.accessToken,
      ClientCredentials: TOKEN_TTL.accessToken,
      AuthorizationCode: TOKEN_TTL.authorizationCode,
      IdToken: TOKEN_TTL.accessToken,
      // 30 days from the sign-in: the grant ends then, and every refresh token of it with the grant.
      // A rotated refresh token keeps the time the one it replaces had left, so that its `exp` (in
      // introspection) says when it really ends, rather than a fresh 30 days it would never see.
      RefreshToken: (ctx) => ctx?.oidc?.entities.RotatedRefreshToken?.remainingTTL ?? TOKEN_TTL.refreshToken,
      Grant: TOKEN_TTL.refreshToken,
      Interaction: 600,
      Session: 14 * 24 * 3600,
    },
    features: {
      devInteractions: { enabled: false },
      // Not in the spec's flows: pushed authorization requests would be a second way into the
      // authorization endpoint, one that skips the scope bound of authorization-scope-bound.ts.
      pushedAuthorizationRequests: { enabled: false },
      // Not in the spec either, and on by default in oidc-provider 9: a token request with a DPoP
      // proof got `token_type: DPoP`, yet the access token carries exactly the spec's claims (no
      // `cnf.jkt` binding) and the gateway takes Bearer tokens only, so the client was told its
      // token was sender-constrained while anyone holding it could use it. Off, the proof is
      // ignored and the answer says `Bearer`, which is what the token is.
      dPoP: { enabled: false },
      clientCredentials: { enabled: true },
      // Refresh tokens are introspected by the provider (JWT access tokens by token-routes.ts):
      // the same rule for both, the token's own client or a client of the same customer account.
      // The provider's default let any confidential client of any account read a refresh token's
      // subject and scopes.
      introspection: {
        enabled: true,
        allowedPolicy: async (ctx, caller, token) => {
          if (token.clientId === caller.clientId) return true;
          if (caller.clientAuthMethod === 'none' || !token.clientId) return false;
          const owner = await ctx.oidc.provider.Client.find(token.clientId);
          return sameCustomerAccount(caller, owner);
        },
      },
      // Refresh tokens are revoked by the provider (JWT access tokens by token-routes.ts): another
      // client's token is answered 200 and left alone, as there, rather than the provider's 400
      // ("not authorized to revoke the presented token"), which told the caller the token exists.
      revocation: {
        enabled: true,
        allowedPolicy: (_ctx, caller, token) => token.clientId === caller.clientId,
      },
      userinfo: { enabled: true },
      rpInitiatedLogout: { enabled: false },
      resourceIndicators: {
        enabled: true,
        defaultResource: () => audience,
        useGrantedResource: () => true,
        getResourceServerInfo: (ctx, resource, client) => {
          if (resource !== audience) throw new errors.InvalidTarget();
          const params = ctx.oidc.params as { grant_type?: unknown; scope?: unknown } | undefined;
          // An authorization request without scope (RFC 6749 3.3: use a default or refuse it with
          // invalid_scope). There is no default: the provider would have the shopper sign in and
          // then answer access_denied, having nothing to grant.
          // (No `scope` parameter in the answer: there is no refused scope to name.)
          if (ctx.oidc.route === 'authorization' && !splitScopes(params?.scope as string | undefined).length)
            throw Object.assign(
              new errors.InvalidScope('scope is required: ask for the scopes the application needs', ''),
              { scope: undefined },
            );
          // Client credentials without `scope`: the client's registered scopes (else the token
          // would carry no `scope` claim, which the gateway refuses as malformed).
          if (params && params.grant_type === 'client_credentials' && !params.scope) {
            const registered = splitScopes(client.scope).filter((s) => RESOURCE_SCOPES.includes(s));
            if (!registered.length)
              throw new errors.InvalidScope('scope is required: this client has no API scope', 'scope');
            params.scope = registered.join(' ');
          }
          // The provider would silently drop a scope it does not know or the client may not use;
          // client credentials and refresh requests are answered invalid_scope instead (an
          // authorization request has had such scopes left out, authorization-scope-bound.ts).
          const allowed = new Set(splitScopes(client.scope));
          const refused = splitScopes(ctx.oidc.params?.scope as string | undefined).filter(
            (s) => !allowed.has(s),
          );
          if (refused.length)
            throw new errors.InvalidScope(
              'requested scope is not allowed for this client',
              refused.join(' '),
            );
          // A user token never carries more than the shopper's roles allow, whatever its grant
          // says (grants recorded before this bound was introduced included).
          const account = ctx.oidc.account as ShopperAccount | undefined;
          const roleBound = account?.user ? scopesAllowedForRoles(account.user.roles) : undefined;
          // `offline_access` belongs to user tokens (it comes with their refresh tokens).
          const tokenScopes =
            params?.grant_type === 'client_credentials' ? RESOURCE_SCOPES : USER_RESOURCE_SCOPES;
          return {
            audience,
            scope: tokenScopes.filter((s) => !roleBound || roleBound.has(s)).join(' '),
            accessTokenTTL: TOKEN_TTL.accessToken,
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          };
        },
      },
    },
    findAccount: async (ctx, sub) => {
      const account = await findShopper(deps.customers, sub);
      // Exchanging a code or a refresh token: the shopper must (still) be in the client's tree.
      const client = ctx.oidc?.client;
      if (account && client && ctx.oidc.route === 'token') {
        if (!(await inClientTree(deps.customers, client, account.user.cust_id))) return undefined;
      }
      return account;
    },
    loadExistingGrant: async (ctx) => {
      const { client, session, params } = ctx.oidc;
      // Scopes the shopper's roles do not allow are left out of the request itself, so that no
      // consent is asked for them and their absence from the grant is no reason to ask again.
      const signedIn = ctx.oidc.account as ShopperAccount | undefined;
      if (signedIn?.user && params && typeof params.scope === 'string') {
        const allowed = scopesAllowedForRoles(signedIn.user.roles);
        params.scope = splitScopes(params.scope)
          .filter((s) => allowed.has(s))
          .join(' ');
      }
      const grantId = ctx.oidc.result?.consent?.grantId || (client && session?.grantIdFor(client.clientId));
      const existing = grantId ? await ctx.oidc.provider.Grant.find(grantId) : undefined;
      if (!client || !session?.accountId || clientExtra(client, 'first_party') !== true) return existing;
      const account = ctx.oidc.account as ShopperAccount | undefined;
      // Outside the client's tree: no grant; the login prompt asks for another shopper.
      if (!account || !(await inClientTree(deps.customers, client, account.user.cust_id))) return existing;
      // First-party clients: no consent screen; the grant covers what was asked (within the
      // client's allowed scopes, which the provider already enforced, and the shopper's roles).
      const grant =
        existing ?? new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: session.accountId });
      grantRequestedScopes(grant, params?.scope as string | undefined, audience, account.user.roles);
      await grant.save();
      return grant;
    },
    extraTokenClaims: (ctx, token) => {
      if (token.kind === 'AccessToken') {
        const account = ctx.oidc.account as ShopperAccount | undefined;
        if (!account) return undefined;
        return { cust_id: account.user.cust_id, login: account.user.login };
      }
      if (token.kind === 'ClientCredentials') {
        const client = ctx.oidc.client;
        return { cust_id: clientExtra(client, 'cust_id'), login: clientExtra(client, 'login') };
      }
      return undefined;
    },
    formats: {
      customizers: {
        // Exactly the claims of the spec. A token issued under a grant (code and refresh flows) is
        // recorded under it before it is handed out, so that revoking the grant denies it by jti.
        jwt: async (_ctx, token, jwt) => {
          const p = jwt.payload;
          const custId = String(p.cust_id);
          const login = String(p.login);
          jwt.payload = {
            iss: p.iss,
            sub: shopperSubject(custId, login),
            aud: p.aud,
            exp: p.exp,
            iat: p.iat,
            jti: p.jti,
            scope: p.scope,
            client_id: p.client_id,
            cust_id: custId,
            login,
          };
          if (
            token.kind === 'ClientCredentials' &&
            (await integrationUserDeactivated(
              { denylist: deps.revocation.denylist, customers: deps.customers },
              String(jwt.payload.sub),
            ))
          ) {
            const refused = new errors.InvalidGrant('integration user deactivated');
            refused.error_description = 'the user this client acts for is deactivated';
            throw refused;
          }
          const grantId = token.kind === 'AccessToken' ? token.grantId : undefined;
          if (grantId) {
            const recorded = await recordGrantToken(deps.revocation, grantId, {
              jti: String(p.jti),
              exp: Number(p.exp),
            });
            if (!recorded) throw new errors.InvalidGrant('grant revoked');
          }
        },
      },
    },
    renderError: (ctx, out) => {
      ctx.type = 'html';
      ctx.body = errorPage(out.error, out.error_description);
    },
  };

  const provider = new Provider(config.AUTH_ISSUER, configuration);
  provider.proxy = config.TRUST_PROXY;
  provider.use(authorizationScopeBound(provider, '/oauth/authorize'));

  // Client secrets are stored as HMAC-SHA-256: compare the HMAC of what was presented, with the
  // current secret's hash and, for 24 h after a rotation, the previous one's (client-secret-policy.ts;
  // the provider itself refuses every secret once `client_secret_expires_at`, the due date, passed).
  type HashedClient = {
    clientSecret?: string;
    previous_client_secret?: unknown;
    previous_client_secret_expires_at?: unknown;
  };
  const clientPrototype = provider.Client.prototype as unknown as {
    compareClientSecret(this: HashedClient, actual: string): Promise<boolean> | boolean;
    checkClientSecretExpiration(this: HashedClient, message: string, errorOverride?: string): void;
  };
  // A secret past its due date (`client_secret_expires_at`): RFC 6749's invalid_client, 401 (the
  // provider's own answer is a 400), saying why and what to do.
  const checkExpiration = clientPrototype.checkClientSecretExpiration;
  clientPrototype.checkClientSecretExpiration = function checkDue(
    this: HashedClient,
    message,
    errorOverride,
  ) {
    try {
      checkExpiration.call(this, message, errorOverride);
    } catch (err) {
      if (err instanceof errors.InvalidClient) {
        Object.assign(err, {
          status: 401,
          statusCode: 401,
          error_description: EXPIRED_SECRET_DESCRIPTION,
        });
      }
      throw err;
    }
  };
  const hmacKey = config.CLIENT_SECRET_KEY;
  const original = clientPrototype.compareClientSecret;
  clientPrototype.compareClientSecret = async function compareHashed(this: HashedClient, actual: string) {
    const presented = hashClientSecret(hmacKey, actual);
    if (await original.call(this, presented)) return true;
    const previous = this.previous_client_secret;
    const until = this.previous_client_secret_expires_at;
    if (typeof previous !== 'string' || typeof until !== 'number' || until <= Date.now() / 1000) return false;
    return secretMatches(hmacKey, actual, previous);
  };

  /** Requests whose server error was the database being unreachable (answered 503 below). */
  const unavailable = new WeakSet<object>();
  provider.on('server_error', (ctx: KoaContextWithOIDC, err: Error) => {
    // Under the endpoint that failed (oidc-provider's route name: token, introspection, userinfo...):
    // OrderingTokenEndpointFailing reads endpoint="token" only.
    const endpoint = (ctx.oidc as { route?: string } | undefined)?.route ?? 'unknown';
    platformMetrics().tokenErrors.add(1, { error: 'server_error', endpoint });
    // The request's logger (libs/http's `req.log`): the line carries the request id the client got.
    const log = (ctx.req as { log?: typeof deps.logger }).log ?? deps.logger;
    log.error({ err, endpoint }, 'oidc-provider server error');
    if (isTransientInfrastructureError(err)) unavailable.add(ctx);
  });
  // A server error because the database dropped or refused the connection (a failover, a restart)
  // is an outage, not a bug: 503 with Retry-After and, on the JSON endpoints, the OAuth error
  // `temporarily_unavailable` (RFC 6749 4.1.2.1's code for it), so that a client retries rather
  // than reports "server_error". The sign-in pages keep their HTML error page, with the 503.
  provider.use(async (ctx, next) => {
    await next();
    if (ctx.status !== 500 || !unavailable.has(ctx)) return;
    ctx.status = 503;
    ctx.set('Retry-After', String(UNAVAILABLE_RETRY_AFTER_SECONDS));
    const body = ctx.body as { error?: unknown } | undefined;
    if (body && typeof body === 'object' && body.error === 'server_error') {
      ctx.body = {
        error: 'temporarily_unavailable',
        error_description: 'the authorization server cannot reach its database right now; retry shortly',
      };
    }
  });
  // The token endpoint's answers, for its error-rate alert (docs/operations.md).
  provider.on('grant.success', (ctx: KoaContextWithOIDC) => {
    const grantType = (ctx.oidc.params?.grant_type as string | undefined) ?? 'unknown';
    platformMetrics().tokensIssued.add(1, { grant_type: grantType });
  });
  provider.on('grant.error', (_ctx: KoaContextWithOIDC, err: Error & { error?: string }) => {
    platformMetrics().tokenErrors.add(1, { error: err.error ?? 'server_error', endpoint: 'token' });
  });

  return provider;
}

export type { ClientMetadata };
