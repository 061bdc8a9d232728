// Verifies bearer access tokens locally: RS256 only, typed `at+jwt`, against the auth service's
// published keys (JWKS), with issuer, audience, expiry and not-before checks. The keys are cached;
// an unknown key id (a key rotated in) triggers a JWKS fetch, and such fetches are rate limited. No
// request ever waits on the auth service otherwise.
// A client sends the same token for up to an hour, so a verified token's claims are remembered for
// a short while (bounded count and age; expiry is still checked on every request): the signature
// check is most of the verification cost.
import { type KeyObject, createPublicKey } from 'node:crypto';
import jwt from 'jsonwebtoken';
import jwksRsa from 'jwks-rsa';
import { AuthenticationError, UnavailableError } from '@ordering/errors';
import { type AccessTokenClaims, accessTokenClaimsOf } from './access-token-claims';

export interface TokenVerifierOptions {
  jwksUrl: string;
  issuer: string;
  audience: string;
  clockToleranceSeconds: number;
  /** How long a fetched key is used before the JWKS is fetched again. */
  cacheMaxAgeMs: number;
  /** JWKS fetches per minute for key ids not in the cache. */
  jwksRequestsPerMinute: number;
  jwksTimeoutMs: number;
  /** How long verified claims are reused for the same token string; 0 disables. Default 60 s. */
  verifiedCacheMaxAgeMs?: number;
  /** Tokens remembered at most. Default 10000. */
  verifiedCacheMaxEntries?: number;
}

export interface TokenVerifier {
  /** The verified claims; AuthenticationError (401) or UnavailableError (503, keys unreachable). */
  verify(token: string): Promise<AccessTokenClaims>;
}

const ALGORITHM = 'RS256';
/**
 * RFC 9068 section 4: an access token is typed `at+jwt` (or `application/at+jwt`; media types are
 * compared without regard to case). Another JWT of the auth service (an ID token is typed `JWT`)
 * is no access token, whatever its claims.
 */
const ACCESS_TOKEN_TYPE = /^(application\/)?at\+jwt$/i;
/** A compact JWS: three base64url parts. */
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

const invalid = (message = 'The bearer token is invalid') => new AuthenticationError(message);

export function createTokenVerifier(options: TokenVerifierOptions): TokenVerifier {
  const jwks = jwksRsa({
    jwksUri: options.jwksUrl,
    cache: true,
    cacheMaxAge: options.cacheMaxAgeMs,
    cacheMaxEntries: 16,
    rateLimit: true,
    jwksRequestsPerMinute: options.jwksRequestsPerMinute,
    timeout: options.jwksTimeoutMs,
  });
  // jwks-rsa hands back the same SigningKey object while it is cached: parse its PEM only once.
  const keyObjects = new WeakMap<object, KeyObject>();

  async function publicKeyFor(kid: string): Promise<KeyObject> {
    let signingKey: jwksRsa.SigningKey;
    try {
      signingKey = await jwks.getSigningKey(kid);
    } catch (err) {
      if ((err as { isEndpointUnavailable?: boolean }).isEndpointUnavailable) {
        throw new UnavailableError('The token signing keys cannot be fetched right now; retry later');
      }
      // Unknown key id (also after a refresh), or refreshes exhausted for this minute.
      throw invalid();
    }
    let key = keyObjects.get(signingKey);
    if (!key) {
      key = createPublicKey(signingKey.getPublicKey());
      keyObjects.set(signingKey, key);
    }
    return key;
  }

  const cacheMaxAgeMs = options.verifiedCacheMaxAgeMs ?? 60_000;
  const cacheMaxEntries = options.verifiedCacheMaxEntries ?? 10_000;
  const verified = new Map<string, { claims: AccessTokenClaims; until: number }>();

  function remember(token: string, claims: AccessTokenClaims, now: number): void {
    if (cacheMaxAgeMs <= 0) return;
    if (verified.size >= cacheMaxEntries) {
      // Forget the oldest entry (a Map iterates in insertion order).
      const oldest = verified.keys().next();
      if (!oldest.done) verified.delete(oldest.value);
    }
    verified.set(token, { claims, until: now + cacheMaxAgeMs });
  }

  return {
    async verify(token) {
      const now = Date.now();
      const known = verified.get(token);
      if (known) {
        if (now < known.until) {
          if (known.claims.exp + options.clockToleranceSeconds <= now / 1000) {
            throw invalid('The bearer token has expired');
          }
          return known.claims;
        }
        verified.delete(token);
      }
      if (!COMPACT_JWS.test(token)) throw invalid();
      const decoded = jwt.decode(token, { complete: true });
      if (!decoded || typeof decoded.payload === 'string') throw invalid();
      const { alg, kid, typ } = decoded.header;
      // Only RS256 with a key id: `none`, HS256 (e.g. keyed with the public key) and others fail here
      // (and again in jwt.verify, which is told the same).
      if (alg !== ALGORITHM || typeof kid !== 'string' || kid.length === 0) throw invalid();
      if (typeof typ !== 'string' || !ACCESS_TOKEN_TYPE.test(typ)) throw invalid();
      const key = await publicKeyFor(kid);
      let payload: unknown;
      try {
        payload = jwt.verify(token, key, {
          algorithms: [ALGORITHM],
          issuer: options.issuer,
          audience: options.audience,
          clockTolerance: options.clockToleranceSeconds,
        });
      } catch (err) {
        throw err instanceof jwt.TokenExpiredError ? invalid('The bearer token has expired') : invalid();
      }
      const claims = accessTokenClaimsOf(payload, kid);
      if (!claims) throw invalid('The bearer token lacks claims this API needs');
      remember(token, claims, now);
      return claims;
    },
  };
}
