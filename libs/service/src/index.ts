export * from './service-env';
export * from './assemble-service';
export * from './service-process';
export * from './clock';
export * from './consumer-readiness';
