// Registered OAuth clients. The secret is stored only as HMAC-SHA-256 (see domain/client-secret.ts).
import { isUnsafeText } from '@ordering/http';
import type { Knex } from 'knex';
import type { OAuthClient, ClientStatus, ClientType } from '../domain/oauth-client';

export const CLIENTS_TABLE = 'oauth_clients';

interface ClientRow {
  client_id: string;
  name: string;
  type: ClientType;
  first_party: boolean;
  redirect_uris: string[];
  scopes: string[];
  cust_id: string;
  login: string;
  secret_hash: string | null;
  status: ClientStatus;
  created_at: Date;
  secret_rotated_at: Date | null;
  previous_secret_hash: string | null;
  previous_secret_expires_at: Date | null;
  all_accounts: boolean;
  disabled_at: Date | null;
}

function toClient(row: ClientRow): OAuthClient {
  return {
    clientId: row.client_id,
    name: row.name,
    type: row.type,
    firstParty: row.first_party,
    redirectUris: row.redirect_uris,
    scopes: row.scopes,
    custId: row.cust_id,
    login: row.login,
    secretHash: row.secret_hash,
    status: row.status,
    createdAt: row.created_at,
    secretRotatedAt: row.secret_rotated_at,
    previousSecretHash: row.previous_secret_hash,
    previousSecretExpiresAt: row.previous_secret_expires_at,
    allAccounts: row.all_accounts,
    disabledAt: row.disabled_at,
  };
}

export class ClientRepository {
  constructor(private readonly knex: Knex) {}

  async insert(client: OAuthClient): Promise<void> {
    await this.knex(CLIENTS_TABLE).insert({
      client_id: client.clientId,
      name: client.name,
      type: client.type,
      first_party: client.firstParty,
      redirect_uris: JSON.stringify(client.redirectUris),
      scopes: JSON.stringify(client.scopes),
      cust_id: client.custId,
      login: client.login,
      secret_hash: client.secretHash,
      status: client.status,
      created_at: client.createdAt,
      secret_rotated_at: client.secretRotatedAt,
      previous_secret_hash: client.previousSecretHash,
      previous_secret_expires_at: client.previousSecretExpiresAt,
      all_accounts: client.allAccounts,
      disabled_at: client.disabledAt,
    });
  }

  async find(clientId: string): Promise<OAuthClient | undefined> {
    // Never issued (and PostgreSQL would refuse a NUL): no such client, so invalid_client.
    if (isUnsafeText(clientId)) return undefined;
    const row = (await this.knex(CLIENTS_TABLE).where({ client_id: clientId }).first()) as
      ClientRow | undefined;
    return row ? toClient(row) : undefined;
  }

  async list(): Promise<OAuthClient[]> {
    const rows = (await this.knex(CLIENTS_TABLE).orderBy('created_at')) as ClientRow[];
    return rows.map(toClient);
  }

  /** A page of the clients of `custIds` (platform clients never), by client id, after `afterClientId`. */
  async listOfAccounts(
    custIds: string[],
    page: { afterClientId?: string; limit: number },
  ): Promise<OAuthClient[]> {
    const q = this.knex(CLIENTS_TABLE)
      .whereRaw('lower(cust_id) = any(?)', [custIds.map((c) => c.toLowerCase())])
      .where({ all_accounts: false })
      .orderBy('client_id')
      .limit(page.limit);
    if (page.afterClientId !== undefined) void q.where('client_id', '>', page.afterClientId);
    return ((await q) as ClientRow[]).map(toClient);
  }

  /** Replaces what a registration says (not the secret); re-enables the client. */
  async updateRegistration(
    client: Omit<
      OAuthClient,
      | 'secretHash'
      | 'createdAt'
      | 'secretRotatedAt'
      | 'disabledAt'
      | 'status'
      | 'previousSecretHash'
      | 'previousSecretExpiresAt'
    >,
  ): Promise<boolean> {
    const n = await this.knex(CLIENTS_TABLE)
      .where({ client_id: client.clientId })
      .update({
        name: client.name,
        type: client.type,
        first_party: client.firstParty,
        redirect_uris: JSON.stringify(client.redirectUris),
        scopes: JSON.stringify(client.scopes),
        cust_id: client.custId,
        login: client.login,
        all_accounts: client.allAccounts,
        status: 'active',
        disabled_at: null,
      });
    return n > 0;
  }

  /**
   * Replaces the secret hash, keeping `previous` (the old hash and when it stops working) or none;
   * false when the client does not exist.
   */
  async setSecretHash(
    clientId: string,
    secretHash: string,
    at: Date,
    previous?: { previousSecretHash: string; previousSecretExpiresAt: Date },
  ): Promise<boolean> {
    const n = await this.knex(CLIENTS_TABLE)
      .where({ client_id: clientId })
      .update({
        secret_hash: secretHash,
        secret_rotated_at: at,
        previous_secret_hash: previous?.previousSecretHash ?? null,
        previous_secret_expires_at: previous?.previousSecretExpiresAt ?? null,
      });
    return n > 0;
  }

  /** Marks the client disabled; false when it does not exist. */
  async disable(clientId: string, at: Date): Promise<boolean> {
    const n = await this.knex(CLIENTS_TABLE)
      .where({ client_id: clientId })
      .update({ status: 'disabled', disabled_at: at });
    return n > 0;
  }
}
