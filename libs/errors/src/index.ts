export * from './app-error';
export * from './error-body';
