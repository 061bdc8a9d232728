// Signing secrets at rest: AES-256-GCM under SIGNING_SECRETS_KEY (a fresh 12-byte IV per secret),
// stored as `v1.<iv>.<tag>.<ciphertext>` (base64url). The plaintext is shown to the integrator once.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { StoredResponseCodec } from '@ordering/idempotency';

/** The 32 raw bytes of a key given in hex or base64, or undefined when it is not 32 bytes. */
export function decodeKey(value: string): Buffer | undefined {
  const hex = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : undefined;
  const bytes = hex ?? Buffer.from(value, 'base64');
  return bytes.length === 32 ? bytes : undefined;
}

export class SecretBox {
  private readonly key: Buffer;

  constructor(key: string) {
    const bytes = decodeKey(key);
    if (!bytes) throw new Error('The signing secrets key must be 32 bytes (hex or base64)');
    this.key = bytes;
  }

  seal(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return ['v1', iv, cipher.getAuthTag(), data]
      .map((p) => (typeof p === 'string' ? p : p.toString('base64url')))
      .join('.');
  }

  open(sealed: string): string {
    const [version, iv, tag, data] = sealed.split('.');
    if (version !== 'v1' || !iv || !tag || data === undefined) throw new Error('Not a sealed signing secret');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString(
      'utf8',
    );
  }
}

/** A new signing secret: `whsec_` + 32 random bytes (the form Stripe's verifiers expect). */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

/**
 * The creation answer as kept for Idempotency-Key replays, its `signing_secret` sealed like the
 * secret itself (else the idempotency table would hold it in clear for 24 h). Keys keep their
 * order, so a replay is the original bytes. A value that is not sealed (written before this) is
 * answered as it is.
 */
export function sealedSecretResponses(box: SecretBox): StoredResponseCodec {
  const mapSecret = (body: unknown, f: (secret: string) => string): unknown => {
    if (typeof body !== 'object' || body === null || Array.isArray(body)) return body;
    return Object.fromEntries(
      Object.entries(body).map(([k, v]) =>
        k === 'signing_secret' && typeof v === 'string' ? [k, f(v)] : [k, v],
      ),
    );
  };
  return {
    toStored: (body) => mapSecret(body, (s) => box.seal(s)),
    fromStored: (body) => mapSecret(body, (s) => (s.startsWith('v1.') ? box.open(s) : s)),
  };
}
