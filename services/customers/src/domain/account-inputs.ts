// What operators send to create or change accounts and addresses.
import { CUST_ID_PATTERN, CurrencyCode } from '@ordering/contracts';
import { z } from 'zod';
import { ADDRESS_TYPES } from './account';

const DOMAIN_PATTERN = /^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

const optionalText = (max: number) => z.string().trim().max(max).nullable().optional();

export const AddressInput = z.object({
  type: z.enum(ADDRESS_TYPES),
  label: z.string().trim().min(1).max(200),
  attention: optionalText(200),
  street_1: z.string().trim().min(1).max(200),
  street_2: optionalText(200),
  city: z.string().trim().min(1).max(100),
  region: z.string().trim().max(100),
  postal_code: z.string().trim().max(20),
  country: z.string().regex(/^[A-Z]{2}$/, 'must be an upper-case ISO 3166-1 alpha-2 code'),
  default: z.boolean().optional(),
});
export type AddressInput = z.infer<typeof AddressInput>;

export const AddressChanges = AddressInput.partial();
export type AddressChanges = z.infer<typeof AddressChanges>;

/** A threshold in minor units; `{amount, currency}` is accepted when the currency is the account's. */
const Threshold = z.union([z.int().min(0), z.object({ amount: z.int().min(0), currency: CurrencyCode })]);

const accountFields = {
  name: z.string().trim().min(1).max(200),
  parent_cust_id: z.string().regex(CUST_ID_PATTERN, 'not an account id').nullable(),
  currency: CurrencyCode,
  approval_required_over: Threshold.nullable(),
  billing_terms: z.string().trim().min(1).max(100),
  jit_provisioning: z.boolean(),
  email_domains: z
    .array(z.string().trim().toLowerCase().regex(DOMAIN_PATTERN, 'not a DNS domain name'))
    .max(50),
};

export const CreateAccountInput = z.object({
  cust_id: z
    .string()
    .regex(CUST_ID_PATTERN, 'letters, digits, _ and - only, starting with a letter or digit, at most 64'),
  name: accountFields.name,
  parent_cust_id: accountFields.parent_cust_id.optional(),
  currency: accountFields.currency.optional(),
  approval_required_over: accountFields.approval_required_over.optional(),
  billing_terms: accountFields.billing_terms.optional(),
  jit_provisioning: accountFields.jit_provisioning.optional(),
  email_domains: accountFields.email_domains.optional(),
  addresses: z.array(AddressInput).max(100).optional(),
});
export type CreateAccountInput = z.infer<typeof CreateAccountInput>;

export const UpdateAccountInput = z.object(accountFields).partial();
export type UpdateAccountInput = z.infer<typeof UpdateAccountInput>;

export const DEFAULT_CURRENCY = 'USD';
export const DEFAULT_BILLING_TERMS = 'net_30';
