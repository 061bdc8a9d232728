export * from './token-bucket';
export * from './memory-token-bucket';
export * from './redis-token-bucket';
export * from './redis-health';
