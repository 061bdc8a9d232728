export * from './config';
export * from './service';
export { CONTENT_SECURITY_POLICY } from './entry-points/http/security-headers';
