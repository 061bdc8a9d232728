// Signing key life cycle: one generated on first start; rotation makes a new key the signing one
// and keeps the old public keys in the JWKS for the overlap, so no token they signed stops
// verifying before it expires.
import type { SigningKeyRepository } from '../data-access/signing-key-repository';
import { decryptPrivateJwk, generateSigningKey, type StoredSigningKey } from './signing-key';
import { CLOCK_SKEW_MARGIN_SECONDS } from './revocation-use-case';
import { TOKEN_TTL } from './token-lifetimes';

/** Default overlap: the access/ID token lifetime plus a margin for clocks and JWKS caches. */
export const DEFAULT_KEY_OVERLAP_SECONDS = TOKEN_TTL.accessToken + 3600;

export interface SigningKeyDeps {
  keys: SigningKeyRepository;
  encryptionKey: Buffer;
  now: () => Date;
}

/** Creates the first signing key unless one is active already (safe under concurrent starts). */
export async function ensureSigningKey(deps: SigningKeyDeps): Promise<void> {
  const now = deps.now();
  await deps.keys.activate(generateSigningKey(deps.encryptionKey, now), now, true);
}

/**
 * A new signing key; the previous one stays published for `overlapSeconds`, and so does at most a
 * key retired earlier (`retiredKids`: every key whose publication now ends then).
 */
export async function rotateSigningKey(
  deps: SigningKeyDeps,
  overlapSeconds = DEFAULT_KEY_OVERLAP_SECONDS,
): Promise<{ kid: string; retiredKids: string[]; retiredPublishedUntil: Date }> {
  const now = deps.now();
  // Run from a checkout against an environment's database, a missing or wrong KEY_ENCRYPTION_KEY
  // would seal the new key with another key (the local default): auth could not open it and every
  // token would fail. The active key must open with the key given.
  const [active] = await deps.keys.listPublished(now);
  if (active?.status === 'active') {
    try {
      decryptPrivateJwk(active.privateJwkEncrypted, deps.encryptionKey, active.kid);
    } catch {
      throw new Error(
        `KEY_ENCRYPTION_KEY does not open the active signing key ${active.kid}: set this environment's KEY_ENCRYPTION_KEY (auth's Secret); nothing was rotated`,
      );
    }
  }
  const key = generateSigningKey(deps.encryptionKey, now);
  const until = new Date(now.getTime() + overlapSeconds * 1000);
  const retiredKids = (await deps.keys.activate(key, until)) ?? [];
  return { kid: key.kid, retiredKids, retiredPublishedUntil: until };
}

/**
 * Whether tokens the previous key signed can outlive its publication (an overlap shorter than an
 * access token's life and the verifiers' clock tolerance): those tokens must then be revoked as the
 * key leaves, since a gateway's cached JWKS would keep accepting them.
 */
export function tokensOutliveOverlap(overlapSeconds: number): boolean {
  return overlapSeconds < TOKEN_TTL.accessToken + CLOCK_SKEW_MARGIN_SECONDS;
}

export interface SigningKeySet {
  /** Private JWKs for the provider, the signing one first. */
  privateJwks: Record<string, unknown>[];
  publicJwks: Record<string, unknown>[];
  /** Identifies the set (changes when a key is added or dropped). */
  fingerprint: string;
}

/** The published keys, decrypted for signing. */
export async function loadSigningKeySet(deps: SigningKeyDeps): Promise<SigningKeySet> {
  const published: StoredSigningKey[] = await deps.keys.listPublished(deps.now());
  if (published.length === 0 || published[0]!.status !== 'active') throw new Error('no active signing key');
  return {
    privateJwks: published.map((k) => decryptPrivateJwk(k.privateJwkEncrypted, deps.encryptionKey, k.kid)),
    publicJwks: published.map((k) => k.publicJwk),
    fingerprint: published.map((k) => k.kid).join(','),
  };
}
