export * from './infrastructure';
export * from './test-tokens';
export * from './test-database';
export * from './kafka-test-client';
export * from './catalog-stand-in';
export * from './open-loop-load';
export * from './bench-figures';
export * from './query-plans';
