// A company's own OpenID Connect identity provider, registered per e-mail domain: people whose
// e-mail is in that domain may sign in through it (federated sign-in), and the customers service
// provisions their shopper record just in time.
import { InputError } from '@ordering/errors';

export interface IdentityProvider {
  /** Lower-case e-mail domain, e.g. `acme.example`; one identity provider per domain. */
  domain: string;
  /** The provider's issuer identifier (its discovery document is under it). */
  issuer: string;
  clientId: string;
  /** In clear only in memory; stored sealed with KEY_ENCRYPTION_KEY. */
  clientSecret: string;
  /** Shown on the sign-in pages ("Continue to Acme SSO"). */
  displayName: string;
  createdAt: Date;
}

export interface IdentityProviderRegistration {
  domain: string;
  issuer: string;
  clientId: string;
  clientSecret: string;
  displayName: string;
}

const DOMAIN = /^(?=.{1,253}$)([a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** The lower-case domain, or undefined when it is not a DNS name. */
export function normalizeDomain(value: string): string | undefined {
  const domain = value.trim().toLowerCase().replace(/\.$/, '');
  return DOMAIN.test(domain) ? domain : undefined;
}

/** The domain of an e-mail address (lower case), or undefined when it is not an address. */
export function emailDomain(email: string): string | undefined {
  const at = email.lastIndexOf('@');
  if (at < 1 || at !== email.indexOf('@') || /\s/.test(email)) return undefined;
  return normalizeDomain(email.slice(at + 1));
}

/** Issuers are https URLs (http only on loopback, for local stacks and tests), without query or fragment. */
export function isAcceptableIssuer(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  if (url.search || url.hash || url.username || url.password) return false;
  return url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname));
}

export function validateRegistration(input: IdentityProviderRegistration, now: Date): IdentityProvider {
  const domain = normalizeDomain(input.domain);
  if (!domain)
    throw new InputError(`domain ${JSON.stringify(input.domain)} is not an e-mail domain`, 'domain');
  if (!isAcceptableIssuer(input.issuer))
    throw new InputError(
      'issuer must be an https URL (http only on loopback) without query or fragment',
      'issuer',
    );
  const clientId = input.clientId.trim();
  if (!clientId) throw new InputError('client id is required', 'client_id');
  if (!input.clientSecret) throw new InputError('client secret is required', 'client_secret');
  const displayName = input.displayName.trim();
  if (!displayName) throw new InputError('display name is required', 'display_name');
  return {
    domain,
    issuer: input.issuer.replace(/\/$/, ''),
    clientId,
    clientSecret: input.clientSecret,
    displayName,
    createdAt: now,
  };
}
