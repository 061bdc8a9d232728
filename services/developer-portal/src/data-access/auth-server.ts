// The auth service as the portal's authorization server: authorization code with PKCE (S256),
// state and nonce, the portal's client secret over HTTP Basic, refresh and revocation. openid-client
// 6 does the protocol; discovery is fetched on first use and kept.
import * as oidc from 'openid-client';
import { decodeJwt } from 'jose';
import { PORTAL_SCOPES, type PendingSignIn } from '../domain/session';

export interface AuthServerOptions {
  issuer: string;
  clientId: string;
  clientSecret: string;
  redirectUri: string;
  timeoutMs: number;
}

/** What a token response tells the portal about the user. */
export interface IssuedTokens {
  accessToken: string;
  accessTokenExpiresAt: number;
  refreshToken: string | undefined;
  scopes: string[];
  name: string;
  login: string;
  custId: string;
}

export class AuthServer {
  private configuration: Promise<oidc.Configuration> | undefined;

  constructor(private readonly options: AuthServerOptions) {}

  private config(): Promise<oidc.Configuration> {
    this.configuration ??= oidc
      .discovery(
        new URL(this.options.issuer),
        this.options.clientId,
        undefined,
        oidc.ClientSecretBasic(this.options.clientSecret),
        {
          timeout: Math.ceil(this.options.timeoutMs / 1000),
          ...(new URL(this.options.issuer).protocol === 'http:'
            ? { execute: [oidc.allowInsecureRequests] }
            : {}),
        },
      )
      .catch((err: unknown) => {
        this.configuration = undefined;
        throw err;
      });
    return this.configuration;
  }

  /** Discovery answers (readiness). */
  async check(): Promise<void> {
    await this.config();
  }

  /** A new sign-in: its secrets (kept server side) and the URL of the sign-in page. */
  async startSignIn(returnTo: string): Promise<{ pending: PendingSignIn; url: string }> {
    const config = await this.config();
    const codeVerifier = oidc.randomPKCECodeVerifier();
    const pending: PendingSignIn = {
      state: oidc.randomState(),
      nonce: oidc.randomNonce(),
      codeVerifier,
      returnTo,
    };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.options.redirectUri,
      scope: PORTAL_SCOPES,
      code_challenge: await oidc.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state: pending.state,
      nonce: pending.nonce,
    });
    return { pending, url: url.href };
  }

  /** Exchanges the code of the callback URL (state, PKCE and nonce checked). */
  async finishSignIn(callbackUrl: URL, pending: PendingSignIn): Promise<IssuedTokens> {
    const config = await this.config();
    const tokens = await oidc.authorizationCodeGrant(config, callbackUrl, {
      pkceCodeVerifier: pending.codeVerifier,
      expectedState: pending.state,
      expectedNonce: pending.nonce,
      idTokenExpected: true,
    });
    return issued(tokens);
  }

  /**
   * New tokens for a refresh token. RefreshRefusedError when the authorization server refuses it for
   * good (an OAuth error answer other than a 429 or a 5xx: `invalid_grant` for a revoked, expired or
   * reused one); anything else (auth unreachable or restarting, its 503, its token endpoint limit's
   * 429) is thrown as it is: the refresh may work in a moment.
   */
  async refresh(refreshToken: string): Promise<IssuedTokens> {
    let tokens;
    try {
      tokens = await oidc.refreshTokenGrant(await this.config(), refreshToken);
    } catch (err) {
      if (err instanceof oidc.ResponseBodyError && err.status < 500 && err.status !== 429)
        throw new RefreshRefusedError(err.error, { cause: err });
      throw err;
    }
    return issued(tokens);
  }

  /** Revokes the refresh token (its grant) at sign-out; failures are the caller's to log. */
  async revoke(token: string): Promise<void> {
    await oidc.tokenRevocation(await this.config(), token);
  }
}

/** The authorization server refused a refresh token for good: the session it belongs to is over. */
export class RefreshRefusedError extends Error {
  constructor(
    readonly error: string,
    options?: ErrorOptions,
  ) {
    super(`the refresh token was refused (${error})`, options);
    this.name = 'RefreshRefusedError';
  }
}

function issued(tokens: oidc.TokenEndpointResponse & oidc.TokenEndpointResponseHelpers): IssuedTokens {
  // The access token is for the gateway; the portal reads its claims only to show who is signed in.
  const claims = decodeJwt(tokens.access_token);
  const idClaims = tokens.claims();
  const scopes = (tokens.scope ?? String(claims.scope ?? '')).split(' ').filter(Boolean);
  const login = String(claims.login ?? '');
  return {
    accessToken: tokens.access_token,
    accessTokenExpiresAt: Math.floor(Date.now() / 1000) + (tokens.expiresIn() ?? 300),
    refreshToken: tokens.refresh_token,
    scopes,
    name: typeof idClaims?.name === 'string' ? idClaims.name : login,
    login,
    custId: String(claims.cust_id ?? ''),
  };
}
