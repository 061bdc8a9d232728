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

  /** Replaces what a registration says (not the secret); re-enables the client. */
  async updateRegistration(
    client: Omit<OAuthClient, 'secretHash' | 'createdAt' | 'secretRotatedAt' | 'disabledAt' | 'status'>,
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
        status: 'active',
        disabled_at: null,
      });
    return n > 0;
  }

  /** Replaces the secret hash; false when the client does not exist. */
  async setSecretHash(clientId: string, secretHash: string, at: Date): Promise<boolean> {
    const n = await this.knex(CLIENTS_TABLE)
      .where({ client_id: clientId })
      .update({ secret_hash: secretHash, secret_rotated_at: at });
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
