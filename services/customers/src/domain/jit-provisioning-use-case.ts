// Just-in-time provisioning: the auth service signs in someone from an identity provider, and no
// shopper record exists yet. When the e-mail's domain maps to an account that allows JIT, the
// shopper is created (login = the e-mail, lower case; role shopper) and user.created fires once,
// even when two sign-ins race; an e-mail that cannot be a login is 422. An existing record of the
// account that owns the domain (or of one of its sub-accounts) is answered as it is (created:
// false); a record of any other account is never signed into (409): the identity provider vouches
// for its domain, and the domain's account is the one the platform operator gave it to, whereas any
// account's admin may create a user named after someone else's e-mail address.
import { LOGIN_PATTERN, LOGIN_RULE } from '@ordering/contracts';
import { ConflictError, InputError, NotFoundError } from '@ordering/errors';
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
    const domain = login.slice(login.lastIndexOf('@') + 1);
    const account = await this.db.customers.findByEmailDomain(domain);
    if (!account) throw noAccountFor(domain);
    const tree = await this.db.customers.reachOf(account.cust_id);
    const byLogin = await this.db.users.find(login);
    if (byLogin && !tree.includes(byLogin.cust_id)) throw heldElsewhere(domain);
    const existing = byLogin ?? (await this.db.users.findByEmailWithin(login, tree));
    if (existing) return { user: existing, created: false };

    if (!account.jit_provisioning) {
      throw noAccountFor(domain);
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
      if (raced && !tree.includes(raced.cust_id)) throw heldElsewhere(domain);
      if (raced) return { user: raced, created: false };
      throw err;
    }
  }
}

function noAccountFor(domain: string): NotFoundError {
  return new NotFoundError(`No account provisions users of ${domain} just in time`, 'email');
}

/** The login the e-mail would be is a user of an account that does not own the e-mail's domain. */
function heldElsewhere(domain: string): ConflictError {
  return new ConflictError(
    'email_held_elsewhere',
    `The login for this e-mail belongs to a user of an account other than the one that owns ${domain}`,
    'email',
  );
}
