// Revocation: what the gateway must refuse from now on. The denylist in Redis is the mechanism the
// gateway reads (bound: one Redis round trip after the revoking request, far under 5 s); the
// revocation messages on TOPICS.auth tell anyone else (audit, caches) what was revoked.
// Access tokens carry exactly the spec's claims (no grant id): every access token issued under a
// grant is recorded under it, and revoking the grant denies each of them by `jti`.
import type { AuthRevocation } from '@ordering/contracts';
import type { RevocationDenylist } from '../data-access/revocation-denylist';
import { LONGEST_TOKEN_LIFETIME, TOKEN_TTL } from './token-lifetimes';

/**
 * Verifiers accept a token a little past its `exp` (the gateway's clock tolerance, 5 s by default):
 * denylist entries outlive the tokens they deny by this margin, and a token counts as alive until
 * it has been expired for that long.
 */
export const CLOCK_SKEW_MARGIN_SECONDS = 60;

export interface RevocationPublisher {
  publish(message: AuthRevocation): Promise<void>;
}

export interface RevocationDeps {
  denylist: RevocationDenylist;
  publisher?: RevocationPublisher;
  /** Seconds since the epoch. */
  now: () => number;
}

/** An access token (by `jti`) is refused until it expires. */
export async function revokeAccessToken(
  deps: RevocationDeps,
  token: { jti: string; exp: number },
): Promise<void> {
  const remaining = token.exp + CLOCK_SKEW_MARGIN_SECONDS - deps.now();
  if (remaining <= 0) return;
  await deps.denylist.revokeToken(token.jti, remaining);
  await deps.publisher?.publish({ type: 'token.revoked', jti: token.jti, exp: token.exp });
}

/**
 * An access token was issued under a grant: recorded, so that revoking the grant denies it.
 * False when the grant was revoked meanwhile (a refresh racing a replay): the token is denied
 * already and must not be handed out.
 */
export function recordGrantToken(
  deps: RevocationDeps,
  grantId: string,
  token: { jti: string; exp: number },
): Promise<boolean> {
  return deps.denylist.recordGrantToken(grantId, token, deps.now() - CLOCK_SKEW_MARGIN_SECONDS);
}

/**
 * Every access token of a grant is refused until it expires (refresh token replay, revoked
 * refresh token, client disabled, shopper deactivated); answers how many live tokens it denied.
 */
export async function revokeGrant(deps: RevocationDeps, grantId: string): Promise<number> {
  // The mark refusing tokens recorded later need only outlive a request in flight; an access
  // token lifetime is ample.
  const denied = await deps.denylist.revokeGrant(
    grantId,
    deps.now() - CLOCK_SKEW_MARGIN_SECONDS,
    TOKEN_TTL.accessToken,
  );
  await deps.publisher?.publish({
    type: 'grant.revoked',
    grant_id: grantId,
    exp: Math.floor(deps.now()) + LONGEST_TOKEN_LIFETIME,
  });
  return denied.length;
}

/** Every token of a shopper issued up to `atSeconds` is refused (deactivated shopper). */
export async function revokeSubject(deps: RevocationDeps, sub: string, atSeconds: number): Promise<void> {
  await deps.denylist.revokeSubject(sub, atSeconds, LONGEST_TOKEN_LIFETIME);
}

/**
 * Every token issued to a client up to `atSeconds` is refused (client disabled): its
 * client-credentials tokens belong to no grant, so the gateway checks this mark per client, within
 * one Redis round trip of the disabling, as for a deactivated shopper.
 */
export async function revokeClient(deps: RevocationDeps, clientId: string, atSeconds: number): Promise<void> {
  await deps.denylist.revokeClient(clientId, atSeconds, LONGEST_TOKEN_LIFETIME);
}

/**
 * Every token a signing key signed is refused from `fromSeconds` (when the key leaves the JWKS).
 * Gateways keep a fetched JWKS for minutes; a key withdrawn before its tokens expire (a leak) is
 * refused through the denylist they read on every request instead, from that second on.
 */
export async function revokeSigningKey(
  deps: RevocationDeps,
  kid: string,
  fromSeconds: number,
): Promise<void> {
  const ttl = Math.max(0, fromSeconds - deps.now()) + TOKEN_TTL.accessToken + CLOCK_SKEW_MARGIN_SECONDS;
  await deps.denylist.revokeSigningKey(kid, fromSeconds, ttl);
}
