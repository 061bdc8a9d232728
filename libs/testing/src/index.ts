export * from './infrastructure';
export * from './test-tokens';
export * from './test-database';
