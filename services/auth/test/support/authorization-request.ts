// The application's side of a code flow's first leg, as openid-client builds it: an authorization
// URL with PKCE (S256) and a state, and what the application keeps to redeem the code.
import * as client from 'openid-client';

export interface AuthorizationRequest {
  url: URL;
  verifier: string;
  state: string;
}

export async function authorizationRequest(
  config: client.Configuration,
  options: { redirectUri: string; scope: string; extra?: Record<string, string> },
): Promise<AuthorizationRequest> {
  const verifier = client.randomPKCECodeVerifier();
  const state = client.randomState();
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: options.redirectUri,
    scope: options.scope,
    state,
    code_challenge: await client.calculatePKCECodeChallenge(verifier),
    code_challenge_method: 'S256',
    ...options.extra,
  });
  return { url, verifier, state };
}
