// The revocation denylist in Redis that the gateway reads before it forwards a request:
//   <prefix>revoked:jti:<jti>      an access token
//   <prefix>revoked:grant:<gid>    every token of a grant (claim `gid`)
//   <prefix>revoked:sub:<sub>      value = unix seconds; tokens of that subject with iat <= value
// Each key lives as long as the longest token it can concern (the refresh token lifetime), so the
// set stays bounded.
import type { Redis } from 'ioredis';

export interface RevocationDenylist {
  revokeToken(jti: string, ttlSeconds: number): Promise<void>;
  revokeGrant(grantId: string, ttlSeconds: number): Promise<void>;
  revokeSubject(sub: string, atSeconds: number, ttlSeconds: number): Promise<void>;
  isTokenRevoked(jti: string): Promise<boolean>;
  isGrantRevoked(grantId: string): Promise<boolean>;
  /** Unix seconds up to which the subject's tokens are revoked, if any. */
  subjectRevokedAt(sub: string): Promise<number | undefined>;
}

export class RedisRevocationDenylist implements RevocationDenylist {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  async revokeToken(jti: string, ttlSeconds: number): Promise<void> {
    await this.redis.set(`${this.prefix}revoked:jti:${jti}`, '1', 'EX', Math.max(1, Math.ceil(ttlSeconds)));
  }

  async revokeGrant(grantId: string, ttlSeconds: number): Promise<void> {
    await this.redis.set(
      `${this.prefix}revoked:grant:${grantId}`,
      '1',
      'EX',
      Math.max(1, Math.ceil(ttlSeconds)),
    );
  }

  async revokeSubject(sub: string, atSeconds: number, ttlSeconds: number): Promise<void> {
    // Never move the mark backwards (a late duplicate event must not un-revoke newer tokens).
    const key = `${this.prefix}revoked:sub:${sub}`;
    await this.redis.eval(
      "local v = tonumber(redis.call('GET', KEYS[1]) or '0') if tonumber(ARGV[1]) > v then v = tonumber(ARGV[1]) end redis.call('SET', KEYS[1], v, 'EX', ARGV[2]) return v",
      1,
      key,
      String(Math.floor(atSeconds)),
      String(Math.max(1, Math.ceil(ttlSeconds))),
    );
  }

  async isTokenRevoked(jti: string): Promise<boolean> {
    return (await this.redis.exists(`${this.prefix}revoked:jti:${jti}`)) === 1;
  }

  async isGrantRevoked(grantId: string): Promise<boolean> {
    return (await this.redis.exists(`${this.prefix}revoked:grant:${grantId}`)) === 1;
  }

  async subjectRevokedAt(sub: string): Promise<number | undefined> {
    const value = await this.redis.get(`${this.prefix}revoked:sub:${sub}`);
    return value === null ? undefined : Number(value);
  }
}
