// An account admin's view of the OAuth clients of their account tree (`/v1/oauth_clients`): list,
// retrieve, rotate a secret. Never a secret, except the new one in the rotation's answer. Platform
// clients (the developer portal itself) are the operator's and never listed here.
import { ConflictError, NotFoundError } from '@ordering/errors';
import type { ClientRepository } from '../data-access/client-repository';
import type { CustomersClient } from '../data-access/customers-client';
import { rotateClientSecret } from './client-registration-use-case';
import { acceptedPreviousHash, secretDueAt } from './client-secret-policy';
import type { OAuthClient } from './oauth-client';

export interface AccountClientsDeps {
  clients: ClientRepository;
  customers: Pick<CustomersClient, 'reachOf'>;
  secretKey: string;
  now: () => Date;
}

/** The caller: the account their token acts for (and its descendants). */
export interface AccountActor {
  custId: string;
}

export interface OAuthClientView {
  id: string;
  object: 'oauth_client';
  name: string;
  type: OAuthClient['type'];
  cust_id: string;
  login: string;
  scopes: string[];
  redirect_uris: string[];
  status: OAuthClient['status'];
  secret_issued_at: string | null;
  secret_due_at: string | null;
  secret_overdue: boolean;
  previous_secret_expires_at: string | null;
  client_secret?: string;
  created_at: string;
}

export function oauthClientView(client: OAuthClient, now: Date, newSecret?: string): OAuthClientView {
  const due = secretDueAt(client);
  const previous = acceptedPreviousHash(client, now) ? client.previousSecretExpiresAt : null;
  return {
    id: client.clientId,
    object: 'oauth_client',
    name: client.name,
    type: client.type,
    cust_id: client.custId,
    login: client.login,
    scopes: client.scopes,
    redirect_uris: client.redirectUris,
    status: client.status,
    secret_issued_at: client.secretHash ? (client.secretRotatedAt ?? client.createdAt).toISOString() : null,
    secret_due_at: due ? due.toISOString() : null,
    secret_overdue: due !== null && due.getTime() <= now.getTime(),
    previous_secret_expires_at: previous ? previous.toISOString() : null,
    ...(newSecret ? { client_secret: newSecret } : {}),
    created_at: client.createdAt.toISOString(),
  };
}

async function reachOf(deps: AccountClientsDeps, actor: AccountActor): Promise<string[]> {
  return [actor.custId, ...(await deps.customers.reachOf(actor.custId))];
}

export async function listAccountClients(
  deps: AccountClientsDeps,
  actor: AccountActor,
  page: { afterClientId?: string; limit: number },
): Promise<OAuthClient[]> {
  return deps.clients.listOfAccounts(await reachOf(deps, actor), page);
}

/** The client when it is of the actor's tree (and not a platform client); 404 otherwise. */
export async function getAccountClient(
  deps: AccountClientsDeps,
  actor: AccountActor,
  clientId: string,
): Promise<OAuthClient> {
  const client = await deps.clients.find(clientId);
  const reach = new Set((await reachOf(deps, actor)).map((c) => c.toLowerCase()));
  if (!client || client.allAccounts || !reach.has(client.custId.toLowerCase()))
    throw new NotFoundError(`No such OAuth client: ${clientId}`, 'id');
  return client;
}

/** A new secret (returned this once); the previous one keeps working for 24 h. */
export async function rotateAccountClientSecret(
  deps: AccountClientsDeps,
  actor: AccountActor,
  clientId: string,
): Promise<{ client: OAuthClient; secret: string }> {
  const client = await getAccountClient(deps, actor, clientId);
  if (client.status !== 'active')
    throw new ConflictError('client_disabled', `OAuth client ${clientId} is disabled`);
  if (client.type === 'native')
    throw new ConflictError('client_has_no_secret', `OAuth client ${clientId} is public: it has no secret`);
  return rotateClientSecret(deps, clientId, { overlap: true });
}
