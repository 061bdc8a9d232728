// A real RS256 issuer for tests: a generated key pair, its JWKS served over HTTP on port 0, and
// access tokens minted with the claims of the spec. The gateway verifies them exactly as it
// verifies the auth service's tokens.
import { generateKeyPairSync, randomUUID, type KeyObject } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import jwt from 'jsonwebtoken';

export interface TestIssuer {
  issuer: string;
  audience: string;
  jwksUrl: string;
  /** Mints an access token for a shopper of an account; `scope` is space-separated. */
  mint(claims: {
    cust_id: string;
    login: string;
    scope: string;
    client_id?: string;
    expiresIn?: number;
  }): string;
  close(): Promise<void>;
}

interface SigningKey {
  kid: string;
  privateKey: KeyObject;
  jwk: Record<string, unknown>;
}

function newSigningKey(): SigningKey {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const kid = randomUUID();
  return { kid, privateKey, jwk: { ...publicKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' } };
}

export async function startTestIssuer(audience = 'http://api.test'): Promise<TestIssuer> {
  const key = newSigningKey();
  const server = http.createServer((req, res) => {
    if (req.url === '/oauth/jwks.json') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ keys: [key.jwk] }));
    } else {
      res.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    issuer,
    audience,
    jwksUrl: `${issuer}/oauth/jwks.json`,
    mint: ({ cust_id, login, scope, client_id = 'test-client', expiresIn = 3600 }) =>
      jwt.sign({ scope, client_id, cust_id, login }, key.privateKey, {
        algorithm: 'RS256',
        keyid: key.kid,
        issuer,
        audience,
        subject: `shopper:${cust_id.toLowerCase()}:${login}`,
        expiresIn,
        jwtid: randomUUID(),
        header: { alg: 'RS256', typ: 'at+jwt', kid: key.kid },
      }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
