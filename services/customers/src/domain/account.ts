// Customer accounts and addresses as the domain sees them, and their API shapes.
import type { Address, Customer } from '@ordering/contracts';

export const ADDRESS_TYPES = ['shipping', 'billing'] as const;
export type AddressType = (typeof ADDRESS_TYPES)[number];

export interface Account {
  cust_id: string;
  name: string;
  parent_cust_id: string | null;
  currency: string;
  /** Minor units of `currency`; null: orders never need approval. */
  approval_required_over: number | null;
  billing_terms: string;
  /** Whether a first sign-in with an e-mail of one of `email_domains` creates the shopper. */
  jit_provisioning: boolean;
  email_domains: string[];
  created_at: Date;
  updated_at: Date;
}

export interface AccountAddress {
  id: string;
  cust_id: string;
  type: AddressType;
  label: string;
  attention: string | null;
  street_1: string;
  street_2: string | null;
  city: string;
  region: string;
  postal_code: string;
  country: string;
  is_default: boolean;
  created_at: Date;
}

export function addressResource(a: AccountAddress): Address {
  return {
    id: a.id,
    object: 'address',
    type: a.type,
    label: a.label,
    attention: a.attention,
    street_1: a.street_1,
    street_2: a.street_2,
    city: a.city,
    region: a.region,
    postal_code: a.postal_code,
    country: a.country,
    default: a.is_default,
  };
}

/** The public Customer resource (GET /v1/customers). */
export function customerResource(account: Account, addresses: AccountAddress[]): Customer {
  return {
    id: account.cust_id,
    object: 'customer',
    name: account.name,
    parent_cust_id: account.parent_cust_id,
    created_at: account.created_at.toISOString(),
    addresses: addresses.map(addressResource),
    currency: account.currency,
    approval_required_over:
      account.approval_required_over === null
        ? null
        : { amount: account.approval_required_over, currency: account.currency },
    billing_terms: account.billing_terms,
  };
}

/** What operators and other services see: the Customer plus the provisioning settings. */
export function adminCustomerResource(account: Account, addresses: AccountAddress[]): Customer {
  return {
    ...customerResource(account, addresses),
    jit_provisioning: account.jit_provisioning,
    email_domains: account.email_domains,
    updated_at: account.updated_at.toISOString(),
  };
}
