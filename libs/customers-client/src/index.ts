export * from './customers-directory';
export * from './tree-readers';
