// A real RS256 issuer: generated key pairs, a JWKS endpoint over HTTP on port 0 (counting its
// fetches), and access tokens minted with jsonwebtoken carrying the spec's claims. `rotate()` adds a
// new signing key to the JWKS, as the auth service does when it rotates keys.
import { type KeyObject, createHmac, generateKeyPairSync, randomUUID } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import jwt from 'jsonwebtoken';

export interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  publicKey: KeyObject;
}

export interface TokenOptions {
  scope?: string;
  cust_id?: string;
  login?: string;
  client_id?: string;
  jti?: string;
  /** Seconds since the epoch; default now. */
  iat?: number;
  /** Seconds since the epoch; default iat + 3600. */
  exp?: number;
  nbf?: number;
  issuer?: string;
  audience?: string;
  /** Signing key; default the newest published key. */
  key?: SigningKey;
  /** Overrides the `kid` header (default the key's). */
  kid?: string;
  /** Overrides the `typ` header (default `at+jwt`); null leaves it out. */
  typ?: string | null;
  /** Claims to leave out. */
  omit?: string[];
}

export function newSigningKey(kid: string = randomUUID()): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { kid, privateKey, publicKey };
}

const nowSeconds = () => Math.floor(Date.now() / 1000);
const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

export class TestIssuer {
  readonly audience = 'https://api.ordering.test';
  /** Keys the JWKS publishes, oldest first. */
  readonly keys: SigningKey[] = [newSigningKey()];
  jwksFetches = 0;
  private server?: http.Server;
  issuer = '';

  get jwksUrl(): string {
    return `${this.issuer}/oauth/jwks.json`;
  }

  async start(): Promise<this> {
    this.server = http.createServer((req, res) => {
      if (req.url !== '/oauth/jwks.json') {
        res.writeHead(404).end();
        return;
      }
      this.jwksFetches++;
      const keys = this.keys.map((k) => ({
        ...k.publicKey.export({ format: 'jwk' }),
        kid: k.kid,
        alg: 'RS256',
        use: 'sig',
      }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys }));
    });
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.issuer = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  /** Publishes a new signing key (the old ones stay published) and returns it. */
  rotate(): SigningKey {
    const key = newSigningKey();
    this.keys.push(key);
    return key;
  }

  get currentKey(): SigningKey {
    return this.keys[this.keys.length - 1] as SigningKey;
  }

  claims(options: TokenOptions = {}): Record<string, unknown> {
    const iat = options.iat ?? nowSeconds();
    const custId = options.cust_id ?? 'ACME';
    const login = options.login ?? 'alice';
    const claims: Record<string, unknown> = {
      iss: options.issuer ?? this.issuer,
      aud: options.audience ?? this.audience,
      sub: `shopper:${custId.toLowerCase()}:${login}`,
      iat,
      exp: options.exp ?? iat + 3600,
      jti: options.jti ?? randomUUID(),
      scope: options.scope ?? 'orders:read orders:write catalog:read',
      client_id: options.client_id ?? 'client_test',
      cust_id: custId,
      login,
      ...(options.nbf === undefined ? {} : { nbf: options.nbf }),
    };
    for (const name of options.omit ?? []) delete claims[name];
    return claims;
  }

  /** An RS256 access token signed with jsonwebtoken. */
  mint(options: TokenOptions = {}): string {
    const key = options.key ?? this.currentKey;
    return jwt.sign(this.claims(options), key.privateKey, {
      algorithm: 'RS256',
      header: {
        alg: 'RS256',
        kid: options.kid ?? key.kid,
        // jsonwebtoken writes `typ: JWT` unless told `undefined`.
        typ: options.typ === null ? undefined : (options.typ ?? 'at+jwt'),
      },
    });
  }

  /** An unsigned token (`alg: none`). */
  mintUnsigned(options: TokenOptions = {}): string {
    return `${b64url({ alg: 'none', typ: 'JWT', kid: this.currentKey.kid })}.${b64url(this.claims(options))}.`;
  }

  /** HS256 keyed with the published public key (the classic algorithm-confusion forgery). */
  mintHs256WithPublicKey(options: TokenOptions = {}): string {
    const key = this.currentKey;
    const pem = key.publicKey.export({ type: 'spki', format: 'pem' }).toString();
    const signingInput = `${b64url({ alg: 'HS256', typ: 'JWT', kid: key.kid })}.${b64url(this.claims(options))}`;
    return `${signingInput}.${createHmac('sha256', pem).update(signingInput).digest('base64url')}`;
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
