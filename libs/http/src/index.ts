import './express-types';

export * from './logger';
export * from './request-id';
export * from './access-log';
export * from './request-telemetry';
export * from './metrics-route';
export * from './error-middleware';
export * from './health-routes';
export * from './create-app';
export * from './identity';
export * from './pagination';
export * from './unsafe-text';
export * from './json-body';
export * from './request-input';
export * from './entry-point';
export * from './service-main';
export * from './internal-client';
export * from './periodic-job';
