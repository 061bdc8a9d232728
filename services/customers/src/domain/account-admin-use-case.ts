// Operators create and change customer accounts and their addresses (internal admin API, CLI,
// bulk import). The account tree never gets a cycle; each account has at most one default address
// per type, and the first address of a type becomes its default.
import { newId } from '@ordering/contracts';
import { ConflictError, InputError, NotFoundError } from '@ordering/errors';
import type { CustomersDatabase, Repositories } from '../data-access/customers-database';
import { type Account, type AccountAddress, adminCustomerResource } from './account';
import {
  type AddressChanges,
  AddressInput,
  type CreateAccountInput,
  DEFAULT_BILLING_TERMS,
  DEFAULT_CURRENCY,
  type UpdateAccountInput,
} from './account-inputs';
import type { Clock } from '@ordering/service';

type Threshold = number | { amount: number; currency: string } | null | undefined;

function thresholdAmount(value: Threshold, currency: string, param: string): number | null | undefined {
  if (value === null || value === undefined || typeof value === 'number') return value;
  if (value.currency !== currency) {
    throw new InputError(
      `${param}.currency must be the account's currency (${currency})`,
      `${param}.currency`,
    );
  }
  return value.amount;
}

export class AccountAdministration {
  constructor(
    private readonly db: CustomersDatabase,
    private readonly clock: Clock,
  ) {}

  async createAccount(input: CreateAccountInput) {
    const account = await this.db.transaction((tx) => this.insertAccount(tx, input, ''));
    return this.adminView(account.cust_id);
  }

  /** Inserts one account (and its addresses) inside a transaction; `param` prefixes error params. */
  async insertAccount(tx: Repositories, input: CreateAccountInput, paramPrefix: string): Promise<Account> {
    const p = (name: string) => (paramPrefix ? `${paramPrefix}.${name}` : name);
    const now = this.clock.now();
    if (await tx.customers.find(input.cust_id)) {
      throw new ConflictError('customer_exists', `An account ${input.cust_id} already exists`, p('cust_id'));
    }
    const parent = input.parent_cust_id ?? null;
    if (parent !== null && !(await tx.customers.find(parent))) {
      throw new InputError(`No account ${parent} to be the parent`, p('parent_cust_id'));
    }
    const currency = input.currency ?? DEFAULT_CURRENCY;
    const domains = [...new Set(input.email_domains ?? [])];
    await this.assertDomainsFree(tx, input.cust_id, domains, p('email_domains'));
    const account: Account = {
      cust_id: input.cust_id,
      name: input.name,
      parent_cust_id: parent,
      currency,
      approval_required_over:
        thresholdAmount(input.approval_required_over, currency, p('approval_required_over')) ?? null,
      billing_terms: input.billing_terms ?? DEFAULT_BILLING_TERMS,
      jit_provisioning: input.jit_provisioning ?? false,
      email_domains: domains,
      created_at: now,
      updated_at: now,
    };
    await tx.customers.insert(account);
    for (const address of input.addresses ?? []) await this.insertAddress(tx, account.cust_id, address);
    return account;
  }

  async updateAccount(custId: string, changes: UpdateAccountInput) {
    await this.db.transaction(async (tx) => {
      if (changes.parent_cust_id !== undefined) await tx.customers.lockHierarchy();
      if (!(await tx.customers.lock(custId))) throw new NotFoundError(`No account ${custId}`);
      const account = (await tx.customers.find(custId))!;
      const next: Account = { ...account, updated_at: this.clock.now() };
      if (changes.name !== undefined) next.name = changes.name;
      if (changes.billing_terms !== undefined) next.billing_terms = changes.billing_terms;
      if (changes.jit_provisioning !== undefined) next.jit_provisioning = changes.jit_provisioning;
      if (changes.currency !== undefined) next.currency = changes.currency;
      if (changes.approval_required_over !== undefined) {
        next.approval_required_over =
          thresholdAmount(changes.approval_required_over, next.currency, 'approval_required_over') ?? null;
      }
      if (changes.email_domains !== undefined) {
        next.email_domains = [...new Set(changes.email_domains)];
        await this.assertDomainsFree(tx, custId, next.email_domains, 'email_domains');
      }
      if (changes.parent_cust_id !== undefined && changes.parent_cust_id !== account.parent_cust_id) {
        const parent = changes.parent_cust_id;
        if (parent !== null) {
          if (!(await tx.customers.find(parent))) {
            throw new InputError(`No account ${parent} to be the parent`, 'parent_cust_id');
          }
          // The new parent must not be the account itself or one of its descendants.
          if (await tx.customers.isWithinReach(custId, parent)) {
            throw new InputError(
              `${parent} is ${parent === custId ? 'the account itself' : `a descendant of ${custId}`}: the hierarchy would have a cycle`,
              'parent_cust_id',
              'hierarchy_cycle',
            );
          }
        }
        next.parent_cust_id = parent;
      }
      await tx.customers.update(next);
    });
    return this.adminView(custId);
  }

  async listAccounts(query: { parentCustId?: string; afterCustId?: string; limit: number }) {
    const accounts = await this.db.customers.list(query);
    const addresses = await this.db.customers.addressesOf(accounts.map((a) => a.cust_id));
    return accounts.map((a) => adminCustomerResource(a, addresses.get(a.cust_id) ?? []));
  }

  async adminView(custId: string) {
    const account = await this.db.customers.find(custId);
    if (!account) throw new NotFoundError(`No account ${custId}`);
    const addresses = await this.db.customers.addressesOf([custId]);
    return adminCustomerResource(account, addresses.get(custId) ?? []);
  }

  async addAddress(custId: string, input: AddressInput) {
    const address = await this.db.transaction(async (tx) => {
      if (!(await tx.customers.lock(custId))) throw new NotFoundError(`No account ${custId}`);
      return this.insertAddress(tx, custId, input);
    });
    return address;
  }

  async updateAddress(custId: string, id: string, changes: AddressChanges) {
    return this.db.transaction(async (tx) => {
      if (!(await tx.customers.lock(custId))) throw new NotFoundError(`No account ${custId}`);
      const current = await tx.customers.findAddress(custId, id);
      if (!current) throw new NotFoundError(`No address ${id} on account ${custId}`);
      const merged = AddressInput.parse({ ...this.asInput(current), ...changes });
      const next: AccountAddress = {
        ...current,
        ...this.fields(merged),
        is_default: changes.default ?? current.is_default,
      };
      if (current.is_default && (!next.is_default || next.type !== current.type)) {
        // The type would be left without a default: another address takes it by being marked default.
        throw new InputError(
          'This is the default address of its type: mark another address default instead',
          'default',
        );
      }
      if (next.is_default && !current.is_default) await tx.customers.clearDefault(custId, next.type);
      await tx.customers.updateAddress(next);
      return next;
    });
  }

  private async insertAddress(
    tx: Repositories,
    custId: string,
    input: AddressInput,
  ): Promise<AccountAddress> {
    const hasDefault = await tx.customers.hasDefault(custId, input.type);
    const isDefault = input.default === true || !hasDefault;
    if (isDefault && hasDefault) await tx.customers.clearDefault(custId, input.type);
    const address: AccountAddress = {
      id: newId('addr'),
      cust_id: custId,
      ...this.fields(input),
      is_default: isDefault,
      created_at: this.clock.now(),
    };
    await tx.customers.insertAddress(address);
    return address;
  }

  private fields(input: AddressInput) {
    return {
      type: input.type,
      label: input.label,
      attention: input.attention ?? null,
      street_1: input.street_1,
      street_2: input.street_2 ?? null,
      city: input.city,
      region: input.region,
      postal_code: input.postal_code,
      country: input.country,
    };
  }

  private asInput(a: AccountAddress): AddressInput {
    return {
      type: a.type,
      label: a.label,
      attention: a.attention,
      street_1: a.street_1,
      street_2: a.street_2,
      city: a.city,
      region: a.region,
      postal_code: a.postal_code,
      country: a.country,
    };
  }

  private async assertDomainsFree(tx: Repositories, custId: string, domains: string[], param: string) {
    const taken = await tx.customers.domainsTakenByOthers(custId, domains);
    if (taken.length > 0) {
      throw new ConflictError(
        'email_domain_taken',
        `E-mail domain ${taken[0]!.domain} already maps to account ${taken[0]!.cust_id}`,
        param,
      );
    }
  }
}
