export * from './app-error';
export * from './error-body';
export * from './transient-errors';
