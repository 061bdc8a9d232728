// The `email` scope's claims (OpenID Connect Core 5.1) of a shopper, for ID tokens and UserInfo.
//
// `email_verified` is false: nothing on this platform proves that a shopper controls the address.
// It is written by account admins and integrations (`/v1/users`), identity providers' SCIM feeds
// and operators, any of which may type someone else's address, and it can change after a federated
// sign-in that once vouched for it. A relying party that links accounts by a "verified" e-mail
// would otherwise hand one person's account elsewhere to whoever set that address here.
// A shopper without an e-mail (SCIM allows it; the record holds "") has no `email` claim.

export interface EmailClaims {
  email?: string;
  email_verified?: boolean;
}

export function emailClaims(email: string | null | undefined): EmailClaims {
  if (!email) return {};
  return { email, email_verified: false };
}
