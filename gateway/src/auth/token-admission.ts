// Whether a verified token may make this request now: not revoked, and a token left in its
// rate-limit bucket. Both come from one Redis script run (one round trip). While Redis is
// unusable, revocations cannot be checked (the gateway fails open, logged and shown by /readyz)
// and the in-process bucket limits the rate. Requests without a verified token are limited by
// their client address.
import { addressKeyOf } from '@ordering/http';
import type { TakeResult } from '@ordering/rate-limit';
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

  /**
   * A request without a verified token (a 401, or an unknown path asked without one) takes from
   * the bucket of its client address instead, the same size as a token's: its answer carries the
   * rate-limit headers like every other, and a flood of bad tokens from one address is refused with
   * 429. There is nothing to revoke. An IPv6 client counts by its /64 (`addressKeyOf`), so that
   * one holder of a /64 cannot spread a flood over fresh buckets.
   */
  async admitAddress(address: string): Promise<TakeResult> {
    return (await this.rateLimiter.takeAndRead(`addr:${addressKeyOf(address)}`, [])).bucket;
  }
}
