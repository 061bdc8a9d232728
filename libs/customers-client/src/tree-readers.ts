// Who reads every order of its account tree (decisions.md "OAuth"), for every service that shows
// orders (the orders themselves, the approval queues they wait in): admins (`admin:all`, or a user
// with the admin role) and client-credentials tokens, whose login is an integration, not a user.
// A shopper's or approver's own token reads only its own.
import { ADMIN_SCOPE } from '@ordering/http';
import type { CustomersDirectory } from './customers-directory';

export interface TreeReaderCaller {
  login: string;
  scopes: readonly string[];
}

/** Whether `caller` reads every order of its account tree (else only its own). */
export async function readsWholeTree(
  caller: TreeReaderCaller,
  directory: Pick<CustomersDirectory, 'user'>,
): Promise<boolean> {
  if (caller.scopes.includes(ADMIN_SCOPE)) return true;
  const user = await directory.user(caller.login);
  const isPerson = user !== undefined && user.cust_id !== undefined;
  return !isPerson || user.roles.includes('admin');
}
