// A client is issued to one customer account: it signs in only shoppers of that account's tree
// (the account and its descendants). A shopper from elsewhere gets the sign-in page's refusal and
// the client `access_denied`; no code, grant or token names them for that client.
import type { CustomersClient } from '../data-access/customers-client';
import { parseShopperSubject } from './subject';

/** Whether the shopper of `userCustId` belongs to the tree of `clientCustId`. */
export async function inClientTree(
  customers: Pick<CustomersClient, 'reachOf'>,
  clientCustId: unknown,
  userCustId: string,
): Promise<boolean> {
  if (typeof clientCustId !== 'string' || clientCustId === '') return false;
  const wanted = userCustId.toLowerCase();
  if (clientCustId.toLowerCase() === wanted) return true;
  const reach = await customers.reachOf(clientCustId);
  return reach.some((id) => id.toLowerCase() === wanted);
}

/** The same for a shopper subject (`shopper:<cust_id lower>:<login>`); false for anything else. */
export async function subjectInClientTree(
  customers: Pick<CustomersClient, 'reachOf'>,
  clientCustId: unknown,
  sub: string,
): Promise<boolean> {
  const parts = parseShopperSubject(sub);
  return parts ? inClientTree(customers, clientCustId, parts.custIdLower) : false;
}
