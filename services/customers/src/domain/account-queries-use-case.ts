// Reading accounts within a token's reach (its account and every descendant), and the internal
// read API other services use for addresses, settings and reach checks.
import { NotFoundError } from '@ordering/errors';
import type { CustomersDatabase } from '../data-access/customers-database';
import { adminCustomerResource, customerResource } from './account';

export class AccountQueries {
  constructor(private readonly db: CustomersDatabase) {}

  /** Accounts within the reach of `reachRoot`, by cust_id; `limit + 1` rows tell whether more follow. */
  async listWithinReach(
    reachRoot: string,
    query: { parentCustId?: string; afterCustId?: string; limit: number },
  ) {
    const accounts = await this.db.customers.list({ ...query, reachOf: reachRoot });
    const addresses = await this.db.customers.addressesOf(accounts.map((a) => a.cust_id));
    return accounts.map((a) => customerResource(a, addresses.get(a.cust_id) ?? []));
  }

  /** 404 for an unknown account and for one outside the reach alike. */
  async getWithinReach(reachRoot: string, custId: string) {
    if (!(await this.db.customers.isWithinReach(reachRoot, custId))) throw notFound(custId);
    const account = (await this.db.customers.find(custId))!;
    const addresses = await this.db.customers.addressesOf([custId]);
    return customerResource(account, addresses.get(custId) ?? []);
  }

  /** For other services: the account with its addresses and settings. */
  async getForService(custId: string) {
    const account = await this.db.customers.find(custId);
    if (!account) throw notFound(custId);
    const addresses = await this.db.customers.addressesOf([custId]);
    return adminCustomerResource(account, addresses.get(custId) ?? []);
  }

  /**
   * For other services: the account's currency and its lineage (itself, its parent, ... its
   * top-level account). A token of account T reaches account A when T is in A's lineage; terms set
   * on an account (price lists, approval chains, webhook subscriptions) apply down the lineage.
   */
  async lineageOf(custId: string): Promise<{ cust_id: string; currency: string; lineage: string[] }> {
    const rows = await this.db.customers.lineageOf(custId);
    const self = rows[0];
    if (!self) throw notFound(custId);
    return { cust_id: self.cust_id, currency: self.currency, lineage: rows.map((r) => r.cust_id) };
  }

  /** The account and its descendants; 404 for an unknown account. */
  async reachOf(custId: string): Promise<string[]> {
    const ids = await this.db.customers.reachOf(custId);
    if (ids.length === 0) throw notFound(custId);
    return ids;
  }
}

function notFound(custId: string): NotFoundError {
  return new NotFoundError(`No such customer: ${custId}`, 'cust_id');
}
