// Passwords are hashed with scrypt (memory-hard, in node:crypto: no native add-on to build).
// Stored as `scrypt$<log2 N>$<r>$<p>$<salt b64>$<hash b64>` so that parameters can grow later.
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

export interface PasswordHasherOptions {
  /** log2 of scrypt's N; 15 (32 MiB with r = 8) by default. */
  cost?: number;
}

const KEY_LENGTH = 32;
const R = 8;
const P = 1;

function derive(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** logN;
  return new Promise((resolve, reject) => {
    scrypt(
      password.normalize('NFC'),
      salt,
      KEY_LENGTH,
      { N, r, p, maxmem: 256 * N * r + 1024 * 1024 },
      (err, key) => (err ? reject(err) : resolve(key)),
    );
  });
}

export class PasswordHasher {
  private readonly cost: number;
  /** A hash of no password, verified against when the login is unknown so that both take as long. */
  private dummy: Promise<string> | undefined;

  constructor(options: PasswordHasherOptions = {}) {
    this.cost = options.cost ?? 15;
  }

  async hash(password: string): Promise<string> {
    const salt = randomBytes(16);
    const key = await derive(password, salt, this.cost, R, P);
    return ['scrypt', this.cost, R, P, salt.toString('base64'), key.toString('base64')].join('$');
  }

  /** Constant-time comparison; false for a malformed or missing hash (after the same work). */
  async verify(password: string, stored: string | null): Promise<boolean> {
    const parts = (stored ?? (await this.dummyHash())).split('$');
    const [scheme, logN, r, p, salt, hash] = parts;
    if (parts.length !== 6 || scheme !== 'scrypt' || !salt || !hash) {
      await this.verify(password, null);
      return false;
    }
    const expected = Buffer.from(hash, 'base64');
    const key = await derive(password, Buffer.from(salt, 'base64'), Number(logN), Number(r), Number(p));
    return stored !== null && key.length === expected.length && timingSafeEqual(key, expected);
  }

  private dummyHash(): Promise<string> {
    this.dummy ??= this.hash(randomBytes(16).toString('hex'));
    return this.dummy;
  }
}
