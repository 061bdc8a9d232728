export * from './infrastructure';
export * from './test-database';
