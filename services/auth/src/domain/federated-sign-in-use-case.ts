// Federated sign-in: a person enters a work e-mail; when its domain has a registered identity
// provider, the browser goes there (authorization code flow with PKCE S256, state and nonce kept in
// the sign-in interaction). On the way back the ID token is checked (by the relying party: issuer,
// audience, nonce, signature against the provider's JWKS), the e-mail must be verified and in the
// provider's own domain, and the customers service returns or creates (just in time, user.created
// once) the shopper of that e-mail. A deactivated shopper is refused.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { CustomersClient } from '../data-access/customers-client';
import { emailDomain, type IdentityProvider } from './identity-provider';
import { shopperSubject } from './subject';

/** What the interaction keeps between leaving for the identity provider and coming back. */
export interface PendingFederation {
  domain: string;
  state: string;
  nonce: string;
  codeVerifier: string;
}

export interface AuthorizationRequest {
  state: string;
  nonce: string;
  codeChallenge: string;
  loginHint: string;
}

/** Claims of a verified ID token. */
export interface VerifiedIdentity {
  sub: string;
  email?: unknown;
  email_verified?: unknown;
  name?: unknown;
}

/** The OpenID Connect relying party towards company identity providers (openid-client). */
export interface RelyingParty {
  /** The provider's authorization endpoint URL for this request. Throws when it cannot be reached. */
  authorizationUrl(idp: IdentityProvider, request: AuthorizationRequest): Promise<URL>;
  /**
   * Validates the authorization response (`callback`, with the query the provider sent), redeems the
   * code with the PKCE verifier and verifies the ID token (issuer, audience, nonce, signature).
   * Throws on any failure.
   */
  redeem(
    idp: IdentityProvider,
    callback: URL,
    checks: { state: string; nonce: string; codeVerifier: string },
  ): Promise<VerifiedIdentity>;
}

export interface IdentityProviderLookup {
  findByDomain(domain: string): Promise<IdentityProvider | undefined>;
}

export interface FederatedSignInDeps {
  identityProviders: IdentityProviderLookup;
  relyingParty: RelyingParty;
  customers: CustomersClient;
  onFailure?: (reason: string, err?: unknown) => void;
}

export type BeginResult =
  | { outcome: 'redirect'; url: URL; pending: PendingFederation; displayName: string }
  | { outcome: 'invalid_email' }
  | { outcome: 'unknown_domain'; domain: string }
  | { outcome: 'idp_unreachable'; displayName: string };

export type CompleteResult =
  | { outcome: 'signed_in'; sub: string; created: boolean }
  | { outcome: 'state_mismatch' }
  | { outcome: 'idp_error'; displayName: string }
  | { outcome: 'email_unverified' }
  | { outcome: 'email_outside_domain'; domain: string }
  | { outcome: 'no_account'; domain: string }
  | { outcome: 'email_not_login' }
  | { outcome: 'email_held_elsewhere' }
  | { outcome: 'deactivated' };

const random = () => randomBytes(32).toString('base64url');

/**
 * Starts a federated sign-in for `email` within the interaction `interactionUid`: the state carries
 * the uid (so the shared callback finds the interaction again) and a random part only the
 * interaction knows.
 */
export async function beginFederatedSignIn(
  deps: FederatedSignInDeps,
  input: { email: string; interactionUid: string },
): Promise<BeginResult> {
  const email = input.email.trim();
  const domain = emailDomain(email);
  if (!domain) return { outcome: 'invalid_email' };
  const idp = await deps.identityProviders.findByDomain(domain);
  if (!idp) return { outcome: 'unknown_domain', domain };
  const pending: PendingFederation = {
    domain,
    state: `${input.interactionUid}.${random()}`,
    nonce: random(),
    codeVerifier: random(),
  };
  try {
    const url = await deps.relyingParty.authorizationUrl(idp, {
      state: pending.state,
      nonce: pending.nonce,
      codeChallenge: createHash('sha256').update(pending.codeVerifier).digest('base64url'),
      loginHint: email,
    });
    return { outcome: 'redirect', url, pending, displayName: idp.displayName };
  } catch (err) {
    deps.onFailure?.('identity provider discovery failed', err);
    return { outcome: 'idp_unreachable', displayName: idp.displayName };
  }
}

/** The interaction uid a callback's `state` names, or undefined for a malformed state. */
export function interactionUidOfState(state: unknown): string | undefined {
  if (typeof state !== 'string') return undefined;
  const match = /^([A-Za-z0-9_-]{1,128})\.[A-Za-z0-9_-]{16,128}$/.exec(state);
  return match?.[1];
}

function sameString(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Finishes a federated sign-in from the provider's callback (`callback` carries its query). */
export async function completeFederatedSignIn(
  deps: FederatedSignInDeps,
  pending: PendingFederation,
  callback: URL,
): Promise<CompleteResult> {
  const state = callback.searchParams.get('state');
  if (state === null || !sameString(state, pending.state)) return { outcome: 'state_mismatch' };
  const idp = await deps.identityProviders.findByDomain(pending.domain);
  if (!idp) return { outcome: 'no_account', domain: pending.domain };
  let identity: VerifiedIdentity;
  try {
    identity = await deps.relyingParty.redeem(idp, callback, {
      state: pending.state,
      nonce: pending.nonce,
      codeVerifier: pending.codeVerifier,
    });
  } catch (err) {
    deps.onFailure?.('identity provider sign-in failed', err);
    return { outcome: 'idp_error', displayName: idp.displayName };
  }
  if (identity.email_verified !== true || typeof identity.email !== 'string')
    return { outcome: 'email_unverified' };
  const email = identity.email.trim().toLowerCase();
  // An identity provider vouches for its own domain only.
  if (emailDomain(email) !== idp.domain) return { outcome: 'email_outside_domain', domain: idp.domain };
  // The customers service takes names of up to 200 characters.
  const name =
    typeof identity.name === 'string' && identity.name.trim()
      ? identity.name.trim().slice(0, 200)
      : undefined;
  const provisioned = await deps.customers.provisionJustInTime(email, name);
  if (!provisioned) return { outcome: 'no_account', domain: idp.domain };
  if (provisioned === 'email_not_login') return { outcome: 'email_not_login' };
  // Its login is a user of an account that does not own the domain (any admin may name a user so).
  if (provisioned === 'email_held_elsewhere') return { outcome: 'email_held_elsewhere' };
  const { user, created } = provisioned;
  if (user.status !== 'active') return { outcome: 'deactivated' };
  return { outcome: 'signed_in', sub: shopperSubject(user.cust_id, user.login), created };
}
