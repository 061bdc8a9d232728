// A signed-in admin's session, kept on the server (Redis): the browser holds only an opaque cookie.
// Tokens never reach the browser. Who may manage webhooks and clients: a token that carries
// `admin:all`, which the auth service grants only to users whose role allows it.

export const ADMIN_SCOPE = 'admin:all';
/** What the portal asks for: who the user is, and the admin scope (left out for non-admins). */
export const PORTAL_SCOPES = 'openid profile admin:all';

export interface PortalSession {
  /** Display name and login of the signed-in user. */
  name: string;
  login: string;
  custId: string;
  scopes: string[];
  accessToken: string;
  /** Seconds since the epoch. */
  accessTokenExpiresAt: number;
  refreshToken: string | undefined;
  /** The synchroniser token every form of this session carries. */
  csrfToken: string;
}

/** A message shown once on the session's next page (after a redirect). */
export interface FlashMessage {
  kind: 'success' | 'error';
  text: string;
}

/** Refreshed a minute before the access token expires, so that no API call carries a dead one. */
export function needsRefresh(
  session: Pick<PortalSession, 'accessTokenExpiresAt'>,
  nowSeconds = Date.now() / 1000,
) {
  return session.accessTokenExpiresAt - 60 <= nowSeconds;
}

/** The sign-in in flight: what the callback must see again (PKCE verifier, state, nonce). */
export interface PendingSignIn {
  state: string;
  nonce: string;
  codeVerifier: string;
  /** A path of the portal to return to. */
  returnTo: string;
}

export function isAdmin(session: Pick<PortalSession, 'scopes'>): boolean {
  return session.scopes.includes(ADMIN_SCOPE);
}

/** Only a path of this portal (no scheme, no host, no `//`), else `/`: no open redirect. */
export function safeReturnPath(value: unknown): string {
  if (typeof value !== 'string' || !value.startsWith('/') || value.startsWith('//') || value.includes('\\'))
    return '/';
  return value.length > 512 ? '/' : value;
}
