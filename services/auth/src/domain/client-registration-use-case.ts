// Registering, re-keying and disabling OAuth clients (operator commands, demo seed).
import { randomBytes } from 'node:crypto';
import { ConflictError, NotFoundError } from '@ordering/errors';
import type { ClientRepository } from '../data-access/client-repository';
import { generateClientSecret, hashClientSecret } from './client-secret';
import { previousAfterRotation } from './client-secret-policy';
import { validateRegistration, type ClientRegistration, type OAuthClient } from './oauth-client';
import { revokeClient, revokeGrant, type RevocationDeps } from './revocation-use-case';

export interface ClientRegistrationDeps {
  clients: ClientRepository;
  secretKey: string;
  now: () => Date;
}

/** The registered client and, for confidential clients, its secret: shown this once only. */
export interface RegisteredClient {
  client: OAuthClient;
  clientSecret: string | undefined;
}

export async function registerClient(
  deps: ClientRegistrationDeps,
  input: ClientRegistration,
): Promise<RegisteredClient> {
  validateRegistration(input);
  const clientId = input.clientId ?? `cl_${randomBytes(12).toString('base64url')}`;
  if (await deps.clients.find(clientId))
    throw new ConflictError('client_exists', `client ${clientId} already exists`, 'client_id');
  const secret = input.type === 'native' ? undefined : generateClientSecret();
  const now = deps.now();
  const client: OAuthClient = {
    clientId,
    name: input.name.trim(),
    type: input.type,
    firstParty: input.firstParty ?? false,
    redirectUris: input.redirectUris ?? [],
    scopes: [...new Set(input.scopes)],
    custId: input.custId,
    login: input.login,
    secretHash: secret ? hashClientSecret(deps.secretKey, secret) : null,
    status: 'active',
    createdAt: now,
    secretRotatedAt: secret ? now : null,
    previousSecretHash: null,
    previousSecretExpiresAt: null,
    allAccounts: input.allAccounts ?? false,
    disabledAt: null,
  };
  await deps.clients.insert(client);
  return { client, clientSecret: secret };
}

/**
 * A new secret, shown this once. `overlap: false` (the operator CLI, a leaked secret): the old one
 * stops working at once. `overlap: true` (the API): it keeps working for 24 h, never past its own
 * due date (client-secret-policy.ts); a secret replaced earlier than that stops at once.
 */
export async function rotateClientSecret(
  deps: ClientRegistrationDeps,
  clientId: string,
  options: { overlap: boolean } = { overlap: false },
): Promise<{ secret: string; client: OAuthClient }> {
  const client = await deps.clients.find(clientId);
  if (!client) throw new NotFoundError(`No client ${clientId}`, 'client_id');
  if (client.type === 'native')
    throw new ConflictError('client_has_no_secret', `client ${clientId} is public: it has no secret`);
  const secret = generateClientSecret();
  const now = deps.now();
  const previous = options.overlap ? previousAfterRotation(client, now) : undefined;
  const secretHash = hashClientSecret(deps.secretKey, secret);
  await deps.clients.setSecretHash(clientId, secretHash, now, previous);
  return {
    secret,
    client: {
      ...client,
      secretHash,
      secretRotatedAt: now,
      previousSecretHash: previous?.previousSecretHash ?? null,
      previousSecretExpiresAt: previous?.previousSecretExpiresAt ?? null,
    },
  };
}

export interface ClientDisablingDeps extends ClientRegistrationDeps {
  /** Deletes the client's grants (refresh tokens, codes) and returns their ids. */
  deleteGrantsOfClient: (clientId: string) => Promise<string[]>;
  revocation: RevocationDeps;
}

/**
 * A disabled client can no longer authenticate nor start a flow; its grants are deleted and every
 * live access token issued under them is denied at the gateway (by jti). Every token issued to it,
 * client-credentials tokens included (they carry no grant), is denied by the client's cut-off mark,
 * which the gateway reads on every request; introspection answers inactive for them at once.
 */
export async function disableClient(
  deps: ClientDisablingDeps,
  clientId: string,
): Promise<{ revokedGrants: number }> {
  if (!(await deps.clients.disable(clientId, deps.now())))
    throw new NotFoundError(`No client ${clientId}`, 'client_id');
  // The mark first: from this moment no token of the client passes the gateway.
  await revokeClient(deps.revocation, clientId, Math.floor(deps.revocation.now()));
  const grants = await deps.deleteGrantsOfClient(clientId);
  for (const grantId of grants) await revokeGrant(deps.revocation, grantId);
  return { revokedGrants: grants.length };
}
