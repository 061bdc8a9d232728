// Accounts, their e-mail domains and their addresses; the account tree through recursive CTEs.
import type { Knex } from 'knex';
import { takeTransactionLock } from '@ordering/db';
import { ConflictError } from '@ordering/errors';
import type { Account, AccountAddress } from '../domain/account';

interface CustomerRow {
  cust_id: string;
  name: string;
  parent_cust_id: string | null;
  currency: string;
  approval_required_over: string | number | null;
  billing_terms: string;
  jit_provisioning: boolean;
  created_at: Date;
  updated_at: Date;
}

type AddressRow = Omit<AccountAddress, 'country'> & { country: string };

function toAccount(row: CustomerRow, domains: string[]): Account {
  return {
    cust_id: row.cust_id,
    name: row.name,
    parent_cust_id: row.parent_cust_id,
    currency: row.currency.trim(),
    approval_required_over: row.approval_required_over === null ? null : Number(row.approval_required_over),
    billing_terms: row.billing_terms,
    jit_provisioning: row.jit_provisioning,
    email_domains: domains,
    created_at: row.created_at,
    updated_at: row.updated_at,
  };
}

function toAddress(row: AddressRow): AccountAddress {
  return { ...row, country: row.country.trim() };
}

export interface AccountListQuery {
  /** Only this account and its descendants; all accounts when absent. */
  reachOf?: string;
  parentCustId?: string;
  afterCustId?: string;
  limit: number;
}

const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === '23505';

/** `WITH RECURSIVE` rows of `root` and every descendant (the reach of a token of `root`). */
export function reachQuery(db: Knex | Knex.Transaction, root: string): Knex.QueryBuilder {
  return db
    .withRecursive('tree', ['cust_id'], (qb) => {
      qb.select('cust_id')
        .from('customers')
        .where('cust_id', root)
        .unionAll((u) => {
          u.select('c.cust_id').from('customers as c').join('tree as t', 'c.parent_cust_id', 't.cust_id');
        });
    })
    .select('cust_id')
    .from('tree');
}

const LINEAGE_SQL = `with recursive up (cust_id, parent_cust_id, currency, depth) as (
    select cust_id, parent_cust_id, currency, 0 from customers where cust_id = ?
    union all
    select c.cust_id, c.parent_cust_id, c.currency, up.depth + 1
    from customers c join up on c.cust_id = up.parent_cust_id
  )
  select cust_id, currency from up order by depth`;

export class CustomerRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async find(custId: string): Promise<Account | undefined> {
    const row = (await this.db('customers').where({ cust_id: custId }).first()) as CustomerRow | undefined;
    if (!row) return undefined;
    return toAccount(row, await this.domainsOf(custId));
  }

  /** Serialises changes to the account tree until the transaction ends (no two moves make a cycle). */
  async lockHierarchy(): Promise<void> {
    await takeTransactionLock(this.db, 'customers.hierarchy');
  }

  /** Locks the account row until the transaction ends (serialises changes to one account). */
  async lock(custId: string): Promise<boolean> {
    const row = await this.db('customers').where({ cust_id: custId }).forUpdate().first('cust_id');
    return row !== undefined;
  }

  /** 409 `customer_exists` / `email_domain_taken` when a concurrent insert won the race. */
  async insert(account: Account): Promise<void> {
    const { email_domains, ...row } = account;
    try {
      await this.db('customers').insert(row);
    } catch (err) {
      if (isUniqueViolation(err)) {
        throw new ConflictError('customer_exists', `An account ${account.cust_id} already exists`, 'cust_id');
      }
      throw err;
    }
    await this.replaceDomains(account.cust_id, email_domains);
  }

  async update(account: Account): Promise<void> {
    const { email_domains, cust_id, ...row } = account;
    await this.db('customers').where({ cust_id }).update(row);
    await this.replaceDomains(cust_id, email_domains);
  }

  /** The account and every descendant, at any depth. */
  async reachOf(custId: string): Promise<string[]> {
    const rows = (await reachQuery(this.db, custId)) as { cust_id: string }[];
    return rows.map((r) => r.cust_id);
  }

  /** The account, its parent, and so on up to its top-level account; empty for an unknown one. */
  async lineageOf(custId: string): Promise<{ cust_id: string; currency: string }[]> {
    // Other services read it for nearly every request they serve (the catalog's cache misses):
    // written once and named, so that each pooled connection parses and plans it only once.
    const { rows } = await this.db.raw(LINEAGE_SQL, [custId]).options({ name: 'customers_lineage' });
    return rows as { cust_id: string; currency: string }[];
  }

  async isWithinReach(root: string, custId: string): Promise<boolean> {
    const row = await reachQuery(this.db, root).where('cust_id', custId).first();
    return row !== undefined;
  }

  async list(query: AccountListQuery): Promise<Account[]> {
    const q = this.db('customers').orderBy('cust_id').limit(query.limit);
    if (query.reachOf !== undefined) q.whereIn('cust_id', reachQuery(this.db, query.reachOf));
    if (query.parentCustId !== undefined) q.where('parent_cust_id', query.parentCustId);
    if (query.afterCustId !== undefined) q.where('cust_id', '>', query.afterCustId);
    const rows = (await q) as CustomerRow[];
    const domains = await this.domainsOfMany(rows.map((r) => r.cust_id));
    return rows.map((r) => toAccount(r, domains.get(r.cust_id) ?? []));
  }

  async findByEmailDomain(domain: string): Promise<Account | undefined> {
    const row = (await this.db('customer_email_domains').where({ domain: domain.toLowerCase() }).first()) as
      { cust_id: string } | undefined;
    return row ? this.find(row.cust_id) : undefined;
  }

  /** Which of `domains` already belong to another account than `custId`. */
  async domainsTakenByOthers(
    custId: string,
    domains: string[],
  ): Promise<{ domain: string; cust_id: string }[]> {
    if (domains.length === 0) return [];
    return this.db('customer_email_domains')
      .whereIn('domain', domains)
      .whereNot('cust_id', custId)
      .select('domain', 'cust_id');
  }

  async addressesOf(custIds: string[]): Promise<Map<string, AccountAddress[]>> {
    const byCustomer = new Map<string, AccountAddress[]>();
    if (custIds.length === 0) return byCustomer;
    const rows = (await this.db('addresses')
      .whereIn('cust_id', custIds)
      .orderBy([{ column: 'created_at' }, { column: 'id' }])) as AddressRow[];
    for (const row of rows) {
      const list = byCustomer.get(row.cust_id) ?? [];
      list.push(toAddress(row));
      byCustomer.set(row.cust_id, list);
    }
    return byCustomer;
  }

  async findAddress(custId: string, id: string): Promise<AccountAddress | undefined> {
    const row = (await this.db('addresses').where({ cust_id: custId, id }).first()) as AddressRow | undefined;
    return row ? toAddress(row) : undefined;
  }

  async insertAddress(address: AccountAddress): Promise<void> {
    await this.db('addresses').insert(address);
  }

  async updateAddress(address: AccountAddress): Promise<void> {
    const { id, cust_id, ...row } = address;
    await this.db('addresses').where({ id, cust_id }).update(row);
  }

  /** Clears the default flag of the account's addresses of `type` (before another becomes default). */
  async clearDefault(custId: string, type: string): Promise<void> {
    await this.db('addresses')
      .where({ cust_id: custId, type, is_default: true })
      .update({ is_default: false });
  }

  async hasDefault(custId: string, type: string): Promise<boolean> {
    return (
      (await this.db('addresses').where({ cust_id: custId, type, is_default: true }).first('id')) !==
      undefined
    );
  }

  private async domainsOf(custId: string): Promise<string[]> {
    return (await this.domainsOfMany([custId])).get(custId) ?? [];
  }

  private async domainsOfMany(custIds: string[]): Promise<Map<string, string[]>> {
    const map = new Map<string, string[]>();
    if (custIds.length === 0) return map;
    const rows = (await this.db('customer_email_domains').whereIn('cust_id', custIds).orderBy('domain')) as {
      domain: string;
      cust_id: string;
    }[];
    for (const r of rows) map.set(r.cust_id, [...(map.get(r.cust_id) ?? []), r.domain]);
    return map;
  }

  private async replaceDomains(custId: string, domains: string[]): Promise<void> {
    await this.db('customer_email_domains').where({ cust_id: custId }).delete();
    if (domains.length === 0) return;
    try {
      await this.db('customer_email_domains').insert(domains.map((domain) => ({ domain, cust_id: custId })));
    } catch (err) {
      if (isUniqueViolation(err)) {
        throw new ConflictError(
          'email_domain_taken',
          'An e-mail domain already maps to another account',
          'email_domains',
        );
      }
      throw err;
    }
  }
}
