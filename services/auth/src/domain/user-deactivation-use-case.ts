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
  // Tokens issued up to now are refused (a late event must not spare tokens issued in between).
  await revokeSubject(
    deps.revocation,
    sub,
    Math.max(Math.floor(deactivatedAt), Math.floor(deps.revocation.now())),
  );
  const grants = await deps.deleteGrantsOfAccount(sub);
  for (const grantId of grants) await revokeGrant(deps.revocation, grantId);
  return { sub, grants };
}
