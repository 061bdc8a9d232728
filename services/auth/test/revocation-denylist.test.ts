// The grant index behind grant revocation, on the real Redis: access tokens carry no grant id, so
// revoking a grant must reach each of its tokens by jti, including one issued while it is revoked.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { REDIS_URL } from '@ordering/testing';
import { RedisRevocationDenylist } from '../src/data-access/revocation-denylist';
import { recordGrantToken, revokeAccessToken, revokeGrant } from '../src/domain/revocation-use-case';

let redis: Redis;
let prefix: string;
let denylist: RedisRevocationDenylist;
const now = 1_800_000_000;

beforeAll(() => {
  redis = new Redis(REDIS_URL);
});
beforeEach(() => {
  prefix = `test:denylist:${randomBytes(4).toString('hex')}:`;
  denylist = new RedisRevocationDenylist(redis, prefix);
});
afterEach(async () => {
  const keys = await redis.keys(`${prefix}*`);
  if (keys.length) await redis.del(...keys);
});
afterAll(() => redis.disconnect());

const ttl = (key: string) => redis.ttl(`${prefix}${key}`);

describe('revoking a grant', () => {
  it('denies every live token recorded under it until its own expiry, and nothing else', async () => {
    expect(await denylist.recordGrantToken('g1', { jti: 'a', exp: now + 3600 }, now)).toBe(true);
    expect(await denylist.recordGrantToken('g1', { jti: 'b', exp: now + 600 }, now)).toBe(true);
    expect(await denylist.recordGrantToken('g1', { jti: 'expired', exp: now - 1 }, now)).toBe(true);
    expect(await denylist.recordGrantToken('g2', { jti: 'other', exp: now + 3600 }, now)).toBe(true);
    // The index lives as long as its longest-lived token.
    expect(await ttl('grant-tokens:g1')).toBe(3600);

    const denied = await denylist.revokeGrant('g1', now, 3600);
    expect(denied.sort()).toEqual(['a', 'b']);
    expect(await denylist.isTokenRevoked('a')).toBe(true);
    expect(await denylist.isTokenRevoked('b')).toBe(true);
    expect(await ttl('revoked:jti:a')).toBe(3600);
    expect(await ttl('revoked:jti:b')).toBe(600);
    expect(await denylist.isTokenRevoked('expired')).toBe(false);
    expect(await denylist.isTokenRevoked('other')).toBe(false);
    expect(await redis.keys(`${prefix}revoked:grant:*`)).toEqual([]);
  });

  it('denies a token recorded after the revocation (a refresh racing a replay) and says so', async () => {
    await denylist.revokeGrant('g1', now, 3600);
    expect(await denylist.recordGrantToken('g1', { jti: 'late', exp: now + 3600 }, now)).toBe(false);
    expect(await denylist.isTokenRevoked('late')).toBe(true);
    expect(await ttl('revoked:jti:late')).toBe(3600);
    // Another grant is not affected.
    expect(await denylist.recordGrantToken('g2', { jti: 'fine', exp: now + 3600 }, now)).toBe(true);
    expect(await denylist.isTokenRevoked('fine')).toBe(false);
  });

  it('is idempotent: revoking twice denies the same tokens and keeps them denied', async () => {
    await denylist.recordGrantToken('g1', { jti: 'a', exp: now + 3600 }, now);
    expect(await denylist.revokeGrant('g1', now, 3600)).toEqual(['a']);
    expect(await denylist.revokeGrant('g1', now + 10, 3600)).toEqual(['a']);
    expect(await denylist.isTokenRevoked('a')).toBe(true);
  });

  it('of a grant without tokens leaves only its short-lived mark', async () => {
    expect(await denylist.revokeGrant('empty', now, 3600)).toEqual([]);
    expect(await ttl('grant-tokens:empty')).toBe(3600);
    expect(await redis.keys(`${prefix}revoked:*`)).toEqual([]);
  });
});

describe('the margin for verifiers clock tolerance', () => {
  // The gateway accepts a token a few seconds past its exp: a revocation must cover that too.
  it('denies a token just past its exp, for a minute past it', async () => {
    const deps = { denylist, now: () => now };
    expect(await recordGrantToken(deps, 'g1', { jti: 'just-expired', exp: now - 3 })).toBe(true);
    expect(await recordGrantToken(deps, 'g1', { jti: 'long-expired', exp: now - 61 })).toBe(true);
    expect(await recordGrantToken(deps, 'g1', { jti: 'live', exp: now + 100 })).toBe(true);
    expect(await revokeGrant(deps, 'g1')).toBe(2);
    expect(await ttl('revoked:jti:just-expired')).toBe(57);
    expect(await ttl('revoked:jti:live')).toBe(160);
    expect(await denylist.isTokenRevoked('long-expired')).toBe(false);

    await revokeAccessToken(deps, { jti: 'single', exp: now - 3 });
    expect(await ttl('revoked:jti:single')).toBe(57);
  });
});
