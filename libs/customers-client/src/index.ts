export * from './customers-directory';
