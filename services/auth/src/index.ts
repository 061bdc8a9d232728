export * from './config';
export * from './service';
export * from './domain/subject';
export * from './domain/scopes';
export { authCli, registerDemoClients, registerPortalClient } from './entry-points/cli/auth-cli';
export { migrations } from '../migrations';
