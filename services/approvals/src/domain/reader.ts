// Who reads whose approval queue follows who reads which orders (services/orders, reader.ts), since
// a queue shows the orders waiting in it: admins (`admin:all`, or a user with the admin role) and
// client-credentials tokens (whose login is an integration, not a user) read every order of their
// account tree, so every approver's queue of it; a shopper's or approver's own token reads only
// its own orders and queue.
import { ADMIN_SCOPE } from '@ordering/http';
import type { Actor, Directory } from './ports';

/** Whether the caller reads every order of its account tree (else only its own). */
export async function readsWholeTree(actor: Actor, directory: Directory): Promise<boolean> {
  if (actor.scopes.includes(ADMIN_SCOPE)) return true;
  const user = await directory.user(actor.login);
  const isPerson = user !== undefined && user.cust_id !== undefined;
  return !isPerson || user.roles.includes('admin');
}
