// Token lifetimes of the spec, in seconds.
export const TOKEN_TTL = {
  accessToken: 3600,
  authorizationCode: 60,
  refreshToken: 30 * 24 * 3600,
} as const;

/** The longest lifetime of anything a revocation can concern: how long a denylist entry lives. */
export const LONGEST_TOKEN_LIFETIME = TOKEN_TTL.refreshToken;
