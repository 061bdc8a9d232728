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
