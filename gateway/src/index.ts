export { type GatewayConfig, gatewayEnvSchema, loadGatewayConfig } from './config';
export {
  type Gateway,
  type GatewayOptions,
  type RunningGateway,
  createGateway,
  startGateway,
} from './gateway';
export { ROUTES, type Route, type Scope, type ServiceName } from './route-table';
export { openApiDocument } from './openapi-document';
