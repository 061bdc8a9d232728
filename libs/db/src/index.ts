export type { Knex } from 'knex';
export * from './database-url';
export * from './create-knex';
export * from './ensure-database';
export * from './migrations';
export * from './db-env';
export * from './open-service-database';
export * from './database-tls';
export * from './transaction-lock';
