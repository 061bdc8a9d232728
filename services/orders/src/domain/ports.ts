// What the domain needs from other services, as interfaces (the data-access clients implement them).
import type { EffectiveApprovalChain, PriceLinesRequest, PriceLinesResponse } from '@ordering/contracts';
import type { CustomersDirectory } from '@ordering/customers-client';

export type Directory = Pick<CustomersDirectory, 'withinReach' | 'lineage' | 'reach' | 'account' | 'user'>;

export interface Pricing {
  price(request: PriceLinesRequest): Promise<PriceLinesResponse>;
}

export interface ApprovalChains {
  stepsFor(custId: string): Promise<EffectiveApprovalChain['steps']>;
}

export type { Clock } from '@ordering/service';

/** The caller as the gateway identified it. */
export interface Actor {
  /** The token's account: it acts for that account and its descendants. */
  custId: string;
  login: string;
  scopes: string[];
}
