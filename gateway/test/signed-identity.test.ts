import { signIdentity, verifyIdentity } from '@ordering/http';
import { type AccessTokenClaims, identityOf } from '../src/auth/access-token-claims';
import { SignedIdentities } from '../src/auth/signed-identity';

const SECRET = 'test-identity-secret-of-at-least-32-characters';

const claimsOf = (jti: string, exp = Math.floor(Date.now() / 1000) + 600): AccessTokenClaims => ({
  sub: 'shopper:acme:alice',
  cust_id: 'ACME',
  login: 'alice',
  client_id: 'portal',
  scope: 'orders:read  orders:write',
  jti,
  iat: exp - 3600,
  exp,
  kid: 'key-1',
});

describe('SignedIdentities', () => {
  it('signs the identity of the claims, with the token exp, as signIdentity does', () => {
    const claims = claimsOf('jti-1');
    const signed = new SignedIdentities(SECRET).of(claims);
    expect(signed.identity).toEqual({
      sub: 'shopper:acme:alice',
      cust_id: 'ACME',
      login: 'alice',
      client_id: 'portal',
      scopes: ['orders:read', 'orders:write'],
      jti: 'jti-1',
      exp: claims.exp,
    });
    expect(signed.header).toBe(signIdentity(identityOf(claims), SECRET));
    expect(verifyIdentity(signed.header, SECRET)).toEqual(signed.identity);
  });

  it('signs once per verified claims object, and anew for other claims', () => {
    const identities = new SignedIdentities(SECRET);
    const claims = claimsOf('jti-2');
    const first = identities.of(claims);
    expect(identities.of(claims)).toBe(first);
    const other = identities.of(claimsOf('jti-3'));
    expect(other).not.toBe(first);
    expect(verifyIdentity(other.header, SECRET).jti).toBe('jti-3');
  });
});
