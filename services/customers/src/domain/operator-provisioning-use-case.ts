// Operators (CLI, demo seeder, onboarding) create a shopper in any account, optionally with an
// initial password: the user, its user.created event and its password hash commit together.
import type { Credentials } from './credentials-use-case';
import type { Shopper } from './shopper';
import { type CreateShopperInput, OPERATOR, type ShopperManagement } from './shopper-use-case';

export class OperatorProvisioning {
  constructor(
    private readonly shoppers: ShopperManagement,
    private readonly credentials: Credentials,
    private readonly now: () => Date,
  ) {}

  async createShopper(input: CreateShopperInput & { cust_id: string }, password?: string): Promise<Shopper> {
    const hash = password === undefined ? undefined : await this.credentials.hashNewPassword(password);
    const user = await this.shoppers.create(OPERATOR, input, {
      ...(hash === undefined
        ? {}
        : { beforeCommit: (tx, created) => tx.users.setPasswordHash(created.login, hash, this.now()) }),
    });
    return hash === undefined ? user : { ...user, has_password: true };
  }
}
