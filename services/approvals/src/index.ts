export * from './config';
export * from './service';
export { migrations } from '../migrations';
