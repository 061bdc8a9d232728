// The revocation denylist in Redis that the gateway reads before it forwards a request:
//   <prefix>revoked:jti:<jti>      an access token; TTL = its remaining lifetime (plus the margin
//                                  for verifiers' clock tolerance, see revocation-use-case.ts)
//   <prefix>revoked:sub:<sub>      value = unix seconds; tokens of that subject with iat <= value
//   <prefix>revoked:client:<id>    value = unix seconds; tokens issued to that client with iat <= value
//   <prefix>revoked:kid:<kid>      value = unix seconds from which every token that signing key signed
//                                  is refused (the key left the JWKS before its tokens expired)
// and, for the auth service alone, the index that lets a grant's revocation reach its access
// tokens (which carry no grant id, the spec's claims being exactly the ones it lists):
//   <prefix>grant-tokens:<gid>     sorted set of the jtis issued under the grant, scored by their
//                                  `exp`; TTL = the longest remaining token lifetime in it
// Revoking a grant writes `revoked:jti:<jti>` for every live token of the set and marks the set
// revoked, in one atomic script, so that a token issued concurrently under that grant (a refresh
// in flight) is denied as it is recorded. Every key expires when nothing it concerns is alive.
import type { Redis } from 'ioredis';

export interface RevocationDenylist {
  revokeToken(jti: string, ttlSeconds: number): Promise<void>;
  /**
   * Records an access token issued under a grant, so that revoking the grant denies it. Answers
   * false (and denies the token at once) when the grant was revoked already. `aliveAfter` (unix
   * seconds, now minus the verifiers' clock tolerance): a token whose `exp` is past it still
   * counts as alive, and every TTL runs from it.
   */
  recordGrantToken(
    grantId: string,
    token: { jti: string; exp: number },
    aliveAfter: number,
  ): Promise<boolean>;
  /**
   * Denies every access token of a grant whose `exp` is past `aliveAfter` (TTL `exp - aliveAfter`),
   * and any token recorded under it from now on; answers the jtis denied.
   */
  revokeGrant(grantId: string, aliveAfter: number, markTtlSeconds: number): Promise<string[]>;
  revokeSubject(sub: string, atSeconds: number, ttlSeconds: number): Promise<void>;
  /** Every token issued to the client up to `atSeconds` is refused (client disabled). */
  revokeClient(clientId: string, atSeconds: number, ttlSeconds: number): Promise<void>;
  /** Every token the signing key signed is refused from `fromSeconds` on (key withdrawn early). */
  revokeSigningKey(kid: string, fromSeconds: number, ttlSeconds: number): Promise<void>;
  isTokenRevoked(jti: string): Promise<boolean>;
  /** Unix seconds up to which the subject's tokens are revoked, if any. */
  subjectRevokedAt(sub: string): Promise<number | undefined>;
}

/** The member that marks a grant's token set revoked (a jti is a nanoid: never contains `!`). */
const REVOKED_MARK = '!revoked';

// KEYS[1] grant-tokens set, KEYS[2] revoked:jti:<jti>; ARGV jti, exp, alive-after, mark.
// Returns 1 when recorded, 0 when the grant was revoked (the token is denied instead).
const RECORD_SCRIPT = `
local ttl = math.max(1, math.ceil(tonumber(ARGV[2]) - tonumber(ARGV[3])))
if redis.call('ZSCORE', KEYS[1], ARGV[4]) then
  redis.call('SET', KEYS[2], '1', 'EX', ttl)
  return 0
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[3])
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
if redis.call('TTL', KEYS[1]) < ttl then redis.call('EXPIRE', KEYS[1], ttl) end
return 1`;

// KEYS[1] grant-tokens set; ARGV alive-after, mark, mark ttl, revoked:jti: key prefix.
// Denies every live token, marks the set revoked; returns the jtis denied.
const REVOKE_GRANT_SCRIPT = `
local from = tonumber(ARGV[1])
local live = redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. ARGV[1], '+inf', 'WITHSCORES')
local denied = {}
for i = 1, #live, 2 do
  local jti = live[i]
  if jti ~= ARGV[2] then
    redis.call('SET', ARGV[4] .. jti, '1', 'EX', math.max(1, math.ceil(tonumber(live[i + 1]) - from)))
    denied[#denied + 1] = jti
  end
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
redis.call('ZADD', KEYS[1], '+inf', ARGV[2])
if redis.call('TTL', KEYS[1]) < tonumber(ARGV[3]) then redis.call('EXPIRE', KEYS[1], ARGV[3]) end
return denied`;

export class RedisRevocationDenylist implements RevocationDenylist {
  constructor(
    private readonly redis: Redis,
    private readonly prefix: string,
  ) {}

  private jtiKey(jti: string): string {
    return `${this.prefix}revoked:jti:${jti}`;
  }

  private grantTokensKey(grantId: string): string {
    return `${this.prefix}grant-tokens:${grantId}`;
  }

  async revokeToken(jti: string, ttlSeconds: number): Promise<void> {
    await this.redis.set(this.jtiKey(jti), '1', 'EX', Math.max(1, Math.ceil(ttlSeconds)));
  }

  async recordGrantToken(
    grantId: string,
    token: { jti: string; exp: number },
    aliveAfter: number,
  ): Promise<boolean> {
    const recorded = await this.redis.eval(
      RECORD_SCRIPT,
      2,
      this.grantTokensKey(grantId),
      this.jtiKey(token.jti),
      token.jti,
      String(token.exp),
      String(Math.floor(aliveAfter)),
      REVOKED_MARK,
    );
    return recorded === 1;
  }

  async revokeGrant(grantId: string, aliveAfter: number, markTtlSeconds: number): Promise<string[]> {
    // The denied tokens' keys are derived in the script (one atomic step with the mark); this
    // needs a single Redis node (or one slot), as the gateway's admission script does.
    return (await this.redis.eval(
      REVOKE_GRANT_SCRIPT,
      1,
      this.grantTokensKey(grantId),
      String(Math.floor(aliveAfter)),
      REVOKED_MARK,
      String(Math.max(1, Math.ceil(markTtlSeconds))),
      `${this.prefix}revoked:jti:`,
    )) as string[];
  }

  async revokeSubject(sub: string, atSeconds: number, ttlSeconds: number): Promise<void> {
    await this.raiseCutoff(`${this.prefix}revoked:sub:${sub}`, atSeconds, ttlSeconds);
  }

  async revokeClient(clientId: string, atSeconds: number, ttlSeconds: number): Promise<void> {
    await this.raiseCutoff(`${this.prefix}revoked:client:${clientId}`, atSeconds, ttlSeconds);
  }

  async revokeSigningKey(kid: string, fromSeconds: number, ttlSeconds: number): Promise<void> {
    await this.redis.set(
      `${this.prefix}revoked:kid:${kid}`,
      String(Math.floor(fromSeconds)),
      'EX',
      Math.max(1, Math.ceil(ttlSeconds)),
    );
  }

  /** Sets a cut-off mark, never moving it backwards (a late duplicate must not un-revoke newer tokens). */
  private async raiseCutoff(key: string, atSeconds: number, ttlSeconds: number): Promise<void> {
    await this.redis.eval(
      "local v = tonumber(redis.call('GET', KEYS[1]) or '0') if tonumber(ARGV[1]) > v then v = tonumber(ARGV[1]) end redis.call('SET', KEYS[1], v, 'EX', ARGV[2]) return v",
      1,
      key,
      String(Math.floor(atSeconds)),
      String(Math.max(1, Math.ceil(ttlSeconds))),
    );
  }

  async isTokenRevoked(jti: string): Promise<boolean> {
    return (await this.redis.exists(this.jtiKey(jti))) === 1;
  }

  async subjectRevokedAt(sub: string): Promise<number | undefined> {
    // Not connected (an outage): fail now rather than queue until the connection gives up, seconds
    // later; the token endpoint then asks the customers service (integration-subject.ts).
    if (this.redis.status !== 'ready') throw new Error(`Redis connection is ${this.redis.status}`);
    const value = await this.redis.get(`${this.prefix}revoked:sub:${sub}`);
    return value === null ? undefined : Number(value);
  }
}
