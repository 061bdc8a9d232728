export * from './load-config';
export { z } from 'zod';
