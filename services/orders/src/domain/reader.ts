// Who reads which orders: a caller that reads the whole account tree (libs/customers-client,
// `readsWholeTree`) sees every order of it; a shopper's own token sees that shopper's orders, and
// an approver's also the orders that entered their approval queue.
import { readsWholeTree } from '@ordering/customers-client';
import type { Actor, Directory } from './ports';

export interface Reader {
  custId: string;
  login: string;
  /** `tree`: every order of the account tree; `own`: placed by `login` or queued for its approval. */
  sees: 'tree' | 'own';
}

export async function readerOf(actor: Actor, directory: Directory): Promise<Reader> {
  const sees = (await readsWholeTree(actor, directory)) ? 'tree' : 'own';
  return { custId: actor.custId, login: actor.login, sees };
}
