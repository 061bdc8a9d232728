// A secret the service must use again later (an identity provider's client secret), sealed at rest
// with AES-256-GCM under KEY_ENCRYPTION_KEY, the same key and format as the private signing keys:
// `v1.<iv>.<tag>.<ciphertext>` (base64url). `context` is authenticated data binding the ciphertext
// to its row, so a sealed value copied to another row does not open.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export function sealSecret(clear: string, key: Buffer, context: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(context));
  const ciphertext = Buffer.concat([cipher.update(clear, 'utf8'), cipher.final()]);
  return [
    'v1',
    iv.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
    ciphertext.toString('base64url'),
  ].join('.');
}

export function openSecret(sealed: string, key: Buffer, context: string): string {
  const [version, iv, tag, ciphertext] = sealed.split('.');
  if (version !== 'v1' || !iv || !tag || ciphertext === undefined)
    throw new Error(`sealed secret of ${context}: unknown format`);
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(context));
  decipher.setAuthTag(Buffer.from(tag, 'base64url'));
  return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]).toString(
    'utf8',
  );
}
