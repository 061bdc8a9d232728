// The life of a client secret (spec: "Secrets are rotated ... at least every 180 days"): a secret
// falls due 180 days after it was issued and from then on gets no token (`invalid_client`). A
// rotation through the API keeps the previous secret working for 24 h (never past its own due
// date), so that a deployment can switch; the operator CLI's rotation replaces it at once.
import type { OAuthClient } from './oauth-client';

export const SECRET_LIFETIME_DAYS = 180;
export const SECRET_LIFETIME_MS = SECRET_LIFETIME_DAYS * 24 * 3600 * 1000;
export const ROTATION_OVERLAP_MS = 24 * 3600 * 1000;

/** When the current secret falls due; null for a public client (no secret). */
export function secretDueAt(
  client: Pick<OAuthClient, 'secretHash' | 'secretRotatedAt' | 'createdAt'>,
): Date | null {
  if (!client.secretHash) return null;
  const issued = client.secretRotatedAt ?? client.createdAt;
  return new Date(issued.getTime() + SECRET_LIFETIME_MS);
}

/** The previous secret's hash while it is still accepted at `now`, else undefined. */
export function acceptedPreviousHash(
  client: Pick<OAuthClient, 'previousSecretHash' | 'previousSecretExpiresAt'>,
  now: Date,
): string | undefined {
  if (!client.previousSecretHash || !client.previousSecretExpiresAt) return undefined;
  return client.previousSecretExpiresAt.getTime() > now.getTime() ? client.previousSecretHash : undefined;
}

/** The hashes a presented secret may match at `now`: none once the current secret is due. */
export function acceptedSecretHashes(client: OAuthClient, now: Date): string[] {
  const due = secretDueAt(client);
  if (!client.secretHash || !due || due.getTime() <= now.getTime()) return [];
  const previous = acceptedPreviousHash(client, now);
  return previous ? [client.secretHash, previous] : [client.secretHash];
}

/**
 * oidc-provider's view: `client_secret` (the current hash), `client_secret_expires_at` (the due
 * date; the provider answers `invalid_client` "client secret is expired" from then on) and the
 * previous hash while it is accepted (compared by the override in oidc-provider-factory.ts).
 */
export function secretMetadata(client: OAuthClient, now: Date): Record<string, unknown> {
  const due = secretDueAt(client);
  if (!client.secretHash || !due) return {};
  const previous = acceptedPreviousHash(client, now);
  return {
    client_secret: client.secretHash,
    client_secret_expires_at: Math.floor(due.getTime() / 1000),
    ...(previous
      ? {
          previous_client_secret: previous,
          previous_client_secret_expires_at: Math.floor(client.previousSecretExpiresAt!.getTime() / 1000),
        }
      : {}),
  };
}

/** What a rotation at `now` keeps of the old secret: its hash for 24 h, unless it is already due. */
export function previousAfterRotation(
  client: OAuthClient,
  now: Date,
): { previousSecretHash: string; previousSecretExpiresAt: Date } | undefined {
  const due = secretDueAt(client);
  if (!client.secretHash || !due || due.getTime() <= now.getTime()) return undefined;
  const end = Math.min(now.getTime() + ROTATION_OVERLAP_MS, due.getTime());
  return { previousSecretHash: client.secretHash, previousSecretExpiresAt: new Date(end) };
}

/** The `error_description` of the `invalid_client` answered to a secret past its due date. */
export const EXPIRED_SECRET_DESCRIPTION =
  'the client secret expired: it is past its due date (180 days after it was issued); rotate it in the developer portal';
