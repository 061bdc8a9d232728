// Whether a verified token may make this request now: not revoked, and a token left in its
// rate-limit bucket. Both come from one Redis script run (one round trip). While Redis is
// unusable, revocations cannot be checked (the gateway fails open, logged and shown by /readyz)
// and the in-process bucket limits the rate.
import type { TakeResult } from '../rate-limit/token-bucket';
import type { RateLimiter } from '../rate-limit/rate-limiter';
import type { AccessTokenClaims } from './access-token-claims';
import type { RevocationList } from './revocation-list';

export interface Admission {
  revoked: boolean;
  bucket: TakeResult;
}

export class TokenAdmission {
  constructor(
    private readonly revocations: RevocationList,
    readonly rateLimiter: RateLimiter,
  ) {}

  async admit(claims: AccessTokenClaims): Promise<Admission> {
    const { bucket, values } = await this.rateLimiter.takeAndRead(
      claims.jti,
      this.revocations.keysOf(claims),
    );
    return { bucket, revoked: values !== undefined && this.revocations.refuses(claims, values) };
  }
}
