// What the domain needs from other services, as interfaces.
import type { CustomersDirectory } from '@ordering/customers-client';

export type Directory = Pick<
  CustomersDirectory,
  'withinReach' | 'lineage' | 'reach' | 'user' | 'accountUsers'
>;

export interface OrderQuote {
  cust_id: string;
  total: { amount: number; currency: string };
  approval_required_over: { amount: number; currency: string } | null;
  above_threshold: boolean;
}

export interface OrderQuotes {
  /** Prices a draft order as the orders service would, on behalf of a caller; throws its API errors. */
  quote(onBehalfOf: { cust_id: string; login: string }, draft: unknown): Promise<OrderQuote>;
}

export type { Clock } from '@ordering/service';

export interface Actor {
  custId: string;
  login: string;
  scopes: string[];
}
