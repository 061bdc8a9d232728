// A shopper was deactivated (customers service, `user.deactivated`): every token already issued
// for them stops working. The subject mark in the denylist refuses their access tokens at the
// gateway; their grants (refresh tokens, sessions) are deleted and denied as well, so that
// introspection and refresh answer the same.
import type { RevocationDeps } from './revocation-use-case';
import { revokeGrant, revokeSubject } from './revocation-use-case';
import { shopperSubject } from './subject';

export interface UserDeactivationDeps {
  revocation: RevocationDeps;
  deleteGrantsOfAccount: (sub: string) => Promise<string[]>;
}

export async function handleUserDeactivated(
  deps: UserDeactivationDeps,
  user: { cust_id: string; login: string; deactivated_at: string | null },
): Promise<{ sub: string; grants: string[] }> {
  const sub = shopperSubject(user.cust_id, user.login);
  const deactivatedAt = user.deactivated_at ? Date.parse(user.deactivated_at) / 1000 : deps.revocation.now();
  // Grants first, then the subject mark: a refresh that races the deletion can only mint an access
  // token before the mark is taken, and the mark (now, taken after the last grant went) refuses it.
  // The other way round, a refresh between the mark and the deletion in a later second would mint
  // a token the mark does not cover, and the mark alone would show the shopper as revoked while
  // their refresh token still introspected active.
  const grants = await deps.deleteGrantsOfAccount(sub);
  for (const grantId of grants) await revokeGrant(deps.revocation, grantId);
  // Tokens issued up to now are refused (a late event must not spare tokens issued in between).
  await revokeSubject(
    deps.revocation,
    sub,
    Math.max(Math.floor(deactivatedAt), Math.floor(deps.revocation.now())),
  );
  return { sub, grants };
}
