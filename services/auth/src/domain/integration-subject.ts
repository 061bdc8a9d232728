// A client-credentials client acts as the login of the integration it was issued for (decisions.md,
// "OAuth"); that login may be a user of the account (the tokens' `sub` is the same as that user's).
// A deactivated user can no longer sign in, and the tokens already issued for them are refused: a
// client acting as them gets no new token either, until they are active again. The check costs one
// Redis read per token request: the customers service is asked only about a subject the
// revocation denylist holds a deactivation cut-off for, or about every such subject while Redis
// cannot be read.
import type { CustomersClient } from '../data-access/customers-client';
import type { RevocationDenylist } from '../data-access/revocation-denylist';
import { parseShopperSubject } from './subject';

export interface IntegrationSubjectDeps {
  denylist: Pick<RevocationDenylist, 'subjectRevokedAt'>;
  customers: Pick<CustomersClient, 'findUser'>;
}

/** Whether `sub` names a user of its account who is deactivated now. */
export async function integrationUserDeactivated(
  deps: IntegrationSubjectDeps,
  sub: string,
): Promise<boolean> {
  // Redis unreadable (an outage): the customers service, the source of deactivations, is asked
  // instead, so that the token endpoint keeps issuing client-credentials tokens and still refuses
  // a deactivated user's client (a token issued then would outlive the outage: its iat is past the
  // deactivation cut-off the gateway compares it with).
  const cutOff = await deps.denylist.subjectRevokedAt(sub).then(
    (at) => (at === undefined ? 'none' : 'some'),
    () => 'unknown' as const,
  );
  if (cutOff === 'none') return false;
  const parts = parseShopperSubject(sub);
  if (!parts) return false;
  const user = await deps.customers.findUser(parts.login);
  return user != null && user.cust_id.toLowerCase() === parts.custIdLower && user.status !== 'active';
}
