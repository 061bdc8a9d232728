export * from './config';
export * from './service';
export { customersCommand, usersCommand } from './entry-points/cli/customers-command';
export { CustomersAdminClient, AdminApiError } from './entry-points/cli/customers-admin-client';
export { migrations } from '../migrations';
