// The `Idempotency-Key` of creating POSTs (decisions.md "Idempotency"), as the gateway, the
// OpenAPI document and every service hold it.

/** 1 to 255 visible ASCII characters, no spaces; others are 422 `invalid_value`. */
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/**
 * Whose keys a key is looked up among: the client, and within it the token's subject. A client that
 * signs users in (a web app) sends every user's requests; scoped to the client alone, one user's
 * key replayed another user's answer (their order, which that user may not even read) instead of
 * creating the second user's resource. A client-credentials client has one subject, so for it the
 * scope is the client, as decisions.md words it.
 */
export const idempotencyScopeOf = (identity: { client_id: string; sub: string }): string =>
  `${identity.client_id} ${identity.sub}`;
