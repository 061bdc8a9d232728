// Just-in-time provisioning: the auth service signs in someone from an identity provider, and no
// shopper record exists yet. When the e-mail's domain maps to an account that allows JIT, the
// shopper is created (login = the e-mail, lower case; role shopper) and user.created fires once,
// even when two sign-ins race; an e-mail that cannot be a login is 422. An existing record is
// answered as it is (created: false).
import { LOGIN_PATTERN, LOGIN_RULE } from '@ordering/contracts';
import { InputError, NotFoundError } from '@ordering/errors';
import type { CustomersDatabase } from '../data-access/customers-database';
import type { Shopper } from './shopper';
import { OPERATOR, type ShopperManagement } from './shopper-use-case';

export class JitProvisioning {
  constructor(
    private readonly db: CustomersDatabase,
    private readonly shoppers: ShopperManagement,
  ) {}

  async provision(email: string, name?: string): Promise<{ user: Shopper; created: boolean }> {
    const login = email.trim().toLowerCase();
    const existing = (await this.db.users.find(login)) ?? (await this.db.users.findByEmail(login));
    if (existing) return { user: existing, created: false };

    const domain = login.slice(login.lastIndexOf('@') + 1);
    const account = await this.db.customers.findByEmailDomain(domain);
    if (!account || !account.jit_provisioning) {
      throw new NotFoundError(`No account provisions users of ${domain} just in time`, 'email');
    }
    // The e-mail becomes the login: one no other way of creating users could make is refused
    // (an admin can create the user with another login and this e-mail; sign-in then finds it).
    if (!LOGIN_PATTERN.test(login)) {
      throw new InputError(`The e-mail address cannot be a login: ${LOGIN_RULE}`, 'email');
    }
    try {
      const user = await this.shoppers.create(OPERATOR, {
        login,
        email: login,
        name: name?.trim() || login.slice(0, login.indexOf('@')),
        cust_id: account.cust_id,
        roles: ['shopper'],
      });
      return { user, created: true };
    } catch (err) {
      // Another sign-in created it first: theirs fired the event.
      const raced = await this.db.users.find(login);
      if (raced) return { user: raced, created: false };
      throw err;
    }
  }
}
