// Client secrets are long random values, so a keyed fast hash stores them safely: HMAC-SHA-256
// with a server key. A password hash (bcrypt, scrypt) on every token request would cap the token
// endpoint at tens of requests per second. The secret is shown once and never stored in clear.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export function generateClientSecret(): string {
  return `cs_${randomBytes(32).toString('base64url')}`;
}

export function hashClientSecret(key: string, secret: string): string {
  return createHmac('sha256', key).update(secret, 'utf8').digest('hex');
}

/** Constant-time check of a presented secret against the stored hash. */
export function secretMatches(key: string, presented: string, storedHash: string | null): boolean {
  if (!storedHash) return false;
  const a = Buffer.from(hashClientSecret(key, presented), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}

const CLIENT_SECRET_KEY_CHECK = 'CLIENT_SECRET_KEY';

/** A value that tells whether two CLIENT_SECRET_KEYs are the same, and nothing about the key. */
export function clientSecretKeyCheck(key: string): string {
  return createHmac('sha256', key).update('ordering auth: CLIENT_SECRET_KEY check', 'utf8').digest('hex');
}

export interface KeyChecks {
  find(name: string): Promise<string | undefined>;
  put(name: string, value: string, now: Date): Promise<string | undefined>;
}

/**
 * The auth service records which CLIENT_SECRET_KEY it verifies secrets with. Returns true when it
 * replaced another key's check (the secrets made with that key no longer verify).
 */
export async function recordClientSecretKey(checks: KeyChecks, key: string, now: Date): Promise<boolean> {
  const value = clientSecretKeyCheck(key);
  const previous = await checks.put(CLIENT_SECRET_KEY_CHECK, value, now);
  return previous !== undefined && previous !== value;
}

/**
 * Refuses to make a client secret with another CLIENT_SECRET_KEY than the auth service's (known
 * once the service has started on this database): auth would refuse that secret.
 */
export async function assertClientSecretKeyOfService(checks: KeyChecks, key: string): Promise<void> {
  const recorded = await checks.find(CLIENT_SECRET_KEY_CHECK);
  if (recorded !== undefined && recorded !== clientSecretKeyCheck(key)) {
    throw new Error(
      "CLIENT_SECRET_KEY is not the one the auth service uses with this database: the secret would not work. Set this environment's CLIENT_SECRET_KEY (auth's Secret); nothing was changed",
    );
  }
}
