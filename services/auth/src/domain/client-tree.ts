// A client is issued to one customer account: it signs in only shoppers of that account's tree
// (the account and its descendants). A shopper from elsewhere gets the sign-in page's refusal and
// the client `access_denied`; no code, grant or token names them for that client. The one
// exception is a platform client (`all_accounts`, the developer portal), registered by an operator:
// it serves every account, and what a user may do there is bounded by their own token.
import type { CustomersClient } from '../data-access/customers-client';
import { parseShopperSubject } from './subject';

/** The client as the provider holds it (its metadata): `cust_id` and `all_accounts`. */
function metadataOf(client: unknown): { custId: unknown; allAccounts: boolean } {
  const c = client as Record<string, unknown> | undefined;
  return { custId: c?.cust_id, allAccounts: c?.all_accounts === true };
}

/** Whether the shopper of `userCustId` belongs to the tree of the client's account. */
export async function inClientTree(
  customers: Pick<CustomersClient, 'reachOf'>,
  client: unknown,
  userCustId: string,
): Promise<boolean> {
  const { custId: clientCustId, allAccounts } = metadataOf(client);
  if (allAccounts) return true;
  if (typeof clientCustId !== 'string' || clientCustId === '') return false;
  const wanted = userCustId.toLowerCase();
  if (clientCustId.toLowerCase() === wanted) return true;
  const reach = await customers.reachOf(clientCustId);
  return reach.some((id) => id.toLowerCase() === wanted);
}

/** The same for a shopper subject (`shopper:<cust_id lower>:<login>`); false for anything else. */
export async function subjectInClientTree(
  customers: Pick<CustomersClient, 'reachOf'>,
  client: unknown,
  sub: string,
): Promise<boolean> {
  const parts = parseShopperSubject(sub);
  return parts ? inClientTree(customers, client, parts.custIdLower) : false;
}
