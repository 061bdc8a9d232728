import { Money, Timestamp } from './common-schemas';
import { z } from '../zod';
import { requestObject } from './request-object';

export const ADDRESS_TYPES = ['shipping', 'billing'] as const;

/** What a customer account id (`cust_id`) can be: letters, digits, `_` and `-`, at most 64. */
export const CUST_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/;

/** Whether `value` can name a customer account at all (an id outside the pattern names none). */
export function isCustId(value: string): boolean {
  return CUST_ID_PATTERN.test(value);
}

export const Address = z
  .looseObject({
    id: z.string().openapi({ description: 'Used as `shipping_address_id` when creating an order' }),
    object: z.literal('address'),
    type: z.enum(ADDRESS_TYPES),
    label: z.string(),
    attention: z.string().nullable().openapi({
      description:
        "The account's instruction to the carrier (a receiving dock, a department); an order placed to this address carries it as `shipping_address.attention`, else the orderer's name. Null when none",
    }),
    street_1: z.string(),
    street_2: z.string().nullable().openapi({ description: "The address's second line; null when none" }),
    city: z.string(),
    region: z.string(),
    postal_code: z.string(),
    country: z.string().openapi({ description: 'ISO 3166-1 alpha-2 country code', example: 'US' }),
    default: z.boolean(),
  })
  .openapi('Address', { description: "One of a customer account's addresses" });
export type Address = z.infer<typeof Address>;

export const Customer = z
  .looseObject({
    id: z.string().openapi({ description: 'The customer account identifier (`cust_id` elsewhere)' }),
    object: z.literal('customer'),
    name: z.string(),
    parent_cust_id: z.string().nullable().openapi({ description: 'Null for a top-level account' }),
    created_at: Timestamp,
    addresses: z.array(Address),
    currency: z.string().openapi({
      description: "ISO 4217 code (upper case) of the account's currency: its prices, orders and threshold",
      example: 'USD',
    }),
    approval_required_over: Money.nullable().openapi({
      description: 'Order total above which approval is required; null when orders never need approval',
    }),
    billing_terms: z.string(),
  })
  .openapi('Customer', { description: 'A customer account' });
export type Customer = z.infer<typeof Customer>;

export const ApprovalChainStep = z
  .looseObject({
    step: z.int().min(1).openapi({ description: 'Position in the chain, from 1' }),
    approver: z.string().openapi({ description: 'Login of the approver of this step' }),
  })
  .openapi('ApprovalChainStep');

export const ApprovalChain = z
  .looseObject({
    object: z.literal('approval_chain'),
    cust_id: z.string(),
    steps: z.array(ApprovalChainStep),
    inherited_from: z.string().nullable().optional().openapi({
      description:
        'The account whose chain applies (this account or its nearest ancestor with one); null when none does',
    }),
  })
  .openapi('ApprovalChain', { description: "A customer account's ordered list of approval steps" });
export type ApprovalChain = z.infer<typeof ApprovalChain>;

export const PutApprovalChainRequest = requestObject({
  steps: z.array(requestObject({ approver: z.string().min(1) })).max(20),
}).openapi('PutApprovalChainRequest', { description: 'Replaces the chain; steps are numbered in order' });
export type PutApprovalChainRequest = z.infer<typeof PutApprovalChainRequest>;
