export * from './load-config';
export { z } from 'zod';
export * from './redis-tls';
