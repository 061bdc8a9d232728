// Revocation: what the gateway must refuse from now on. The denylist in Redis is the mechanism the
// gateway reads (bound: one Redis round trip after the revoking request, far under 5 s); the
// revocation messages on TOPICS.auth tell anyone else (audit, caches) what was revoked.
import type { AuthRevocation } from '@ordering/contracts';
import type { RevocationDenylist } from '../data-access/revocation-denylist';
import { LONGEST_TOKEN_LIFETIME } from './token-lifetimes';

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
  token: { jti: string; exp: number; gid?: string },
): Promise<void> {
  const remaining = token.exp - deps.now();
  if (remaining <= 0) return;
  await deps.denylist.revokeToken(token.jti, remaining);
  await deps.publisher?.publish({
    type: 'token.revoked',
    jti: token.jti,
    ...(token.gid ? { grant_id: token.gid } : {}),
    exp: token.exp,
  });
}

/** Every token of a grant is refused (refresh token replay, revoked refresh token, operator action). */
export async function revokeGrant(deps: RevocationDeps, grantId: string): Promise<void> {
  await deps.denylist.revokeGrant(grantId, LONGEST_TOKEN_LIFETIME);
  await deps.publisher?.publish({
    type: 'grant.revoked',
    grant_id: grantId,
    exp: Math.floor(deps.now()) + LONGEST_TOKEN_LIFETIME,
  });
}

/** Every token of a shopper issued up to `atSeconds` is refused (deactivated shopper). */
export async function revokeSubject(deps: RevocationDeps, sub: string, atSeconds: number): Promise<void> {
  await deps.denylist.revokeSubject(sub, atSeconds, LONGEST_TOKEN_LIFETIME);
}
