// Who reads which orders (decisions.md "OAuth"): admins (`admin:all`, or a user with the admin role)
// and client-credentials tokens (whose login is an integration, not a user) read every order of
// their account tree; a shopper's own token reads that shopper's orders, and an approver's also
// the orders that entered their approval queue.
import { ADMIN_SCOPE } from '@ordering/http';
import type { Actor, Directory } from './ports';

export interface Reader {
  custId: string;
  login: string;
  /** `tree`: every order of the account tree; `own`: placed by `login` or queued for its approval. */
  sees: 'tree' | 'own';
}

export async function readerOf(actor: Actor, directory: Directory): Promise<Reader> {
  if (actor.scopes.includes(ADMIN_SCOPE)) return { custId: actor.custId, login: actor.login, sees: 'tree' };
  const user = await directory.user(actor.login);
  const isPerson = user !== undefined && user.cust_id !== undefined;
  const sees = !isPerson || user.roles.includes('admin') ? 'tree' : 'own';
  return { custId: actor.custId, login: actor.login, sees };
}
