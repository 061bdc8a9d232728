// The relying party towards company identity providers, on openid-client 6: discovery (cached per
// provider registration), authorization URLs with PKCE S256, state and nonce, and the code
// exchange with ID token validation including its signature against the provider's JWKS
// (enableNonRepudiationChecks). Claims missing from the ID token (email) are read from userinfo.
// Plain http is accepted only for loopback issuers (local stacks, tests).
import * as oidc from 'openid-client';
import type {
  AuthorizationRequest,
  RelyingParty,
  VerifiedIdentity,
} from '../domain/federated-sign-in-use-case';
import type { IdentityProvider } from '../domain/identity-provider';

export interface OpenIdRelyingPartyOptions {
  /** Where the providers send the browser back: `<issuer>/oauth/federation/callback`. */
  redirectUri: string;
  /** Per request to a provider (discovery, JWKS, token). */
  timeoutMs?: number;
  /** How long a discovered configuration is reused. */
  cacheTtlMs?: number;
  now?: () => number;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

export class OpenIdRelyingParty implements RelyingParty {
  private readonly cache = new Map<string, { config: Promise<oidc.Configuration>; expires: number }>();

  constructor(private readonly options: OpenIdRelyingPartyOptions) {}

  async authorizationUrl(idp: IdentityProvider, request: AuthorizationRequest): Promise<URL> {
    const config = await this.configuration(idp);
    return oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.options.redirectUri,
      scope: 'openid email profile',
      state: request.state,
      nonce: request.nonce,
      code_challenge: request.codeChallenge,
      code_challenge_method: 'S256',
      login_hint: request.loginHint,
    });
  }

  async redeem(
    idp: IdentityProvider,
    callback: URL,
    checks: { state: string; nonce: string; codeVerifier: string },
  ): Promise<VerifiedIdentity> {
    const config = await this.configuration(idp);
    // The code was issued for the registered redirect URI, whatever internal hop brought it here.
    const current = new URL(this.options.redirectUri);
    current.search = callback.search;
    const tokens = await oidc.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: checks.codeVerifier,
      expectedState: checks.state,
      expectedNonce: checks.nonce,
      idTokenExpected: true,
    });
    const claims = tokens.claims();
    if (!claims) throw new Error('the identity provider returned no ID token');
    if (claims.email !== undefined || !config.serverMetadata().userinfo_endpoint)
      return claims as VerifiedIdentity;
    // A strictly conforming provider gives scope claims (email, name) at userinfo only in the code
    // flow. The subject must be the ID token's (openid-client checks it).
    const userinfo = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
    return {
      sub: claims.sub,
      email: userinfo.email,
      email_verified: userinfo.email_verified,
      name: claims.name ?? userinfo.name,
    };
  }

  private configuration(idp: IdentityProvider): Promise<oidc.Configuration> {
    const key = JSON.stringify([idp.issuer, idp.clientId, idp.clientSecret]);
    const now = (this.options.now ?? Date.now)();
    const cached = this.cache.get(key);
    if (cached && cached.expires > now) return cached.config;
    const config = this.discover(idp);
    this.cache.set(key, { config, expires: now + (this.options.cacheTtlMs ?? 10 * 60_000) });
    // A failed discovery is not cached.
    config.catch(() => this.cache.delete(key));
    return config;
  }

  private async discover(idp: IdentityProvider): Promise<oidc.Configuration> {
    const issuer = new URL(idp.issuer);
    const timeoutMs = this.options.timeoutMs ?? 5000;
    const timedFetch: oidc.CustomFetch = (url, init) =>
      fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) } as RequestInit);
    const secure = !(issuer.protocol === 'http:' && LOOPBACK.has(issuer.hostname));
    const prepare = (config: oidc.Configuration) => {
      if (!secure) oidc.allowInsecureRequests(config);
      oidc.enableNonRepudiationChecks(config);
      config[oidc.customFetch] = timedFetch;
    };
    const discovered = await oidc.discovery(issuer, idp.clientId, undefined, undefined, {
      execute: secure ? [] : [oidc.allowInsecureRequests],
      [oidc.customFetch]: timedFetch,
    });
    // Authenticate at the token endpoint the way the provider supports (Basic unless only post).
    const metadata = discovered.serverMetadata();
    const methods = metadata.token_endpoint_auth_methods_supported;
    const auth =
      methods && !methods.includes('client_secret_basic') && methods.includes('client_secret_post')
        ? oidc.ClientSecretPost(idp.clientSecret)
        : oidc.ClientSecretBasic(idp.clientSecret);
    const config = new oidc.Configuration(metadata, idp.clientId, undefined, auth);
    prepare(config);
    return config;
  }
}
