// Operators register a company's identity provider for an e-mail domain, list and remove them.
import { NotFoundError } from '@ordering/errors';
import {
  normalizeDomain,
  validateRegistration,
  type IdentityProvider,
  type IdentityProviderRegistration,
} from './identity-provider';

export interface IdentityProviderStore {
  insert(idp: IdentityProvider): Promise<void>;
  remove(domain: string): Promise<boolean>;
}

export async function addIdentityProvider(
  deps: { identityProviders: IdentityProviderStore; now: () => Date },
  input: IdentityProviderRegistration,
): Promise<IdentityProvider> {
  const idp = validateRegistration(input, deps.now());
  await deps.identityProviders.insert(idp);
  return idp;
}

export async function removeIdentityProvider(
  deps: { identityProviders: IdentityProviderStore },
  domain: string,
): Promise<void> {
  const normalized = normalizeDomain(domain);
  if (!normalized || !(await deps.identityProviders.remove(normalized)))
    throw new NotFoundError(`no identity provider for ${domain}`, 'domain');
}
