// The `X-Ordering-Identity` header of a verified token, signed once per token rather than per
// request. The token verifier hands back the same claims object for a token it verified a moment
// ago, so the header is remembered by that object (weakly: it goes when the verifier forgets the
// token). The identity's `exp` is the token's own, so a remembered header never outlives it.
import { type Identity, signIdentity } from '@ordering/http';
import { type AccessTokenClaims, identityOf } from './access-token-claims';

export interface SignedIdentity {
  identity: Identity;
  /** The header value: `<base64url(JSON identity)>.<base64url(HMAC)>`. */
  header: string;
}

export class SignedIdentities {
  private readonly byClaims = new WeakMap<AccessTokenClaims, SignedIdentity>();

  constructor(private readonly secret: string) {}

  of(claims: AccessTokenClaims): SignedIdentity {
    let signed = this.byClaims.get(claims);
    if (!signed) {
      const identity = identityOf(claims);
      signed = { identity, header: signIdentity(identity, this.secret) };
      this.byClaims.set(claims, signed);
    }
    return signed;
  }
}
