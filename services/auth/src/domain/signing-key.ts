// RS256 signing keys: generated here, the private JWK encrypted with AES-256-GCM before it is
// stored (`v1.<iv>.<tag>.<ciphertext>`, base64url), the key from configuration.
import { createCipheriv, createDecipheriv, generateKeyPairSync, randomBytes, randomUUID } from 'node:crypto';

export interface StoredSigningKey {
  kid: string;
  alg: string;
  publicJwk: Record<string, unknown>;
  privateJwkEncrypted: string;
  status: 'active' | 'retired';
  createdAt: Date;
  retiredAt: Date | null;
  /** Retired keys stay in the JWKS until then, so that no token they signed fails. */
  publishUntil: Date | null;
}

export function encryptPrivateJwk(jwk: Record<string, unknown>, key: Buffer, kid: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(kid));
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(jwk), 'utf8'), cipher.final()]);
  return ['v1', iv, cipher.getAuthTag(), ciphertext]
    .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
    .join('.');
}

export function decryptPrivateJwk(sealed: string, key: Buffer, kid: string): Record<string, unknown> {
  const [version, iv, tag, ciphertext] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || ciphertext === undefined)
    throw new Error(`signing key ${kid}: unknown format`);
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(kid));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  const clear = Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]);
  return JSON.parse(clear.toString('utf8')) as Record<string, unknown>;
}

/** A new RSA 2048 key for RS256, its private part sealed with `encryptionKey`. */
export function generateSigningKey(encryptionKey: Buffer, now: Date): StoredSigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = `${now.toISOString().slice(0, 10)}-${randomUUID().slice(0, 8)}`;
  const meta = { kid, alg: 'RS256', use: 'sig' };
  const publicJwk = { ...publicKey.export({ format: 'jwk' }), ...meta };
  const privateJwk = { ...privateKey.export({ format: 'jwk' }), ...meta };
  return {
    kid,
    alg: 'RS256',
    publicJwk,
    privateJwkEncrypted: encryptPrivateJwk(privateJwk, encryptionKey, kid),
    status: 'active',
    createdAt: now,
    retiredAt: null,
    publishUntil: null,
  };
}
