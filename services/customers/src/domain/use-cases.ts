// Every use case of the service, wired once over one database.
import type { CustomersDatabase } from '../data-access/customers-database';
import { AccountAdministration } from './account-admin-use-case';
import { AccountQueries } from './account-queries-use-case';
import { BulkImport } from './bulk-import-use-case';
import type { Clock } from '@ordering/service';
import { type CredentialPolicy, Credentials, DEFAULT_CREDENTIAL_POLICY } from './credentials-use-case';
import { JitProvisioning } from './jit-provisioning-use-case';
import { OperatorProvisioning } from './operator-provisioning-use-case';
import { PasswordHasher } from './password-hasher';
import { ScimProvisioning } from './scim-provisioning-use-case';
import { ShopperManagement } from './shopper-use-case';

export interface UseCases {
  accounts: AccountAdministration;
  accountQueries: AccountQueries;
  bulkImport: BulkImport;
  shoppers: ShopperManagement;
  credentials: Credentials;
  jit: JitProvisioning;
  operatorProvisioning: OperatorProvisioning;
  scim: ScimProvisioning;
}

export interface UseCaseOptions {
  clock: Clock;
  passwordHashCost?: number;
  credentialPolicy?: Partial<CredentialPolicy>;
}

export function createUseCases(db: CustomersDatabase, options: UseCaseOptions): UseCases {
  const accounts = new AccountAdministration(db, options.clock);
  const shoppers = new ShopperManagement(db, options.clock);
  const hasher = new PasswordHasher(
    options.passwordHashCost === undefined ? {} : { cost: options.passwordHashCost },
  );
  const credentials = new Credentials(db, hasher, options.clock, {
    ...DEFAULT_CREDENTIAL_POLICY,
    ...options.credentialPolicy,
  });
  return {
    accounts,
    accountQueries: new AccountQueries(db),
    bulkImport: new BulkImport(db, accounts),
    shoppers,
    credentials,
    jit: new JitProvisioning(db, shoppers),
    operatorProvisioning: new OperatorProvisioning(shoppers, credentials, () => options.clock.now()),
    scim: new ScimProvisioning(db, shoppers, options.clock),
  };
}
