// The identity provider registry (table identity_providers). Client secrets are sealed with
// KEY_ENCRYPTION_KEY on the way in and opened on the way out; the domain is the authenticated data.
import type { Knex } from 'knex';
import { ConflictError } from '@ordering/errors';
import type { IdentityProvider } from '../domain/identity-provider';
import { openSecret, sealSecret } from '../domain/sealed-secret';

export const IDENTITY_PROVIDERS_TABLE = 'identity_providers';

interface IdentityProviderRow {
  domain: string;
  issuer: string;
  client_id: string;
  client_secret_encrypted: string;
  display_name: string;
  created_at: Date;
}

const sealContext = (domain: string) => `idp:${domain}`;

export class IdentityProviderRepository {
  constructor(
    private readonly knex: Knex,
    private readonly encryptionKey: Buffer,
  ) {}

  /** Adds a provider; 409 `domain_taken` when the domain already has one. */
  async insert(idp: IdentityProvider): Promise<void> {
    try {
      await this.knex(IDENTITY_PROVIDERS_TABLE).insert({
        domain: idp.domain,
        issuer: idp.issuer,
        client_id: idp.clientId,
        client_secret_encrypted: sealSecret(idp.clientSecret, this.encryptionKey, sealContext(idp.domain)),
        display_name: idp.displayName,
        created_at: idp.createdAt,
      });
    } catch (err) {
      if ((err as { code?: string }).code === '23505')
        throw new ConflictError('domain_taken', `${idp.domain} already has an identity provider`, 'domain');
      throw err;
    }
  }

  async findByDomain(domain: string): Promise<IdentityProvider | undefined> {
    const row = (await this.knex(IDENTITY_PROVIDERS_TABLE).where({ domain }).first()) as
      IdentityProviderRow | undefined;
    return row ? this.toIdentityProvider(row) : undefined;
  }

  /** Every provider, by domain, without its secret. */
  async list(): Promise<Omit<IdentityProvider, 'clientSecret'>[]> {
    const rows = (await this.knex(IDENTITY_PROVIDERS_TABLE).orderBy('domain')) as IdentityProviderRow[];
    return rows.map((row) => ({
      domain: row.domain,
      issuer: row.issuer,
      clientId: row.client_id,
      displayName: row.display_name,
      createdAt: row.created_at,
    }));
  }

  /** True when a provider was removed. */
  async remove(domain: string): Promise<boolean> {
    return (await this.knex(IDENTITY_PROVIDERS_TABLE).where({ domain }).delete()) > 0;
  }

  private toIdentityProvider(row: IdentityProviderRow): IdentityProvider {
    return {
      domain: row.domain,
      issuer: row.issuer,
      clientId: row.client_id,
      clientSecret: openSecret(row.client_secret_encrypted, this.encryptionKey, sealContext(row.domain)),
      displayName: row.display_name,
      createdAt: row.created_at,
    };
  }
}
