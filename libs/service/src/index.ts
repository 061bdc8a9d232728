export * from './service-env';
export * from './assemble-service';
