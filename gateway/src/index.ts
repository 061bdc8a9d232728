export { type GatewayConfig, gatewayEnvSchema, loadGatewayConfig } from './config';
export {
  type Gateway,
  type GatewayOptions,
  type RunningGateway,
  createGateway,
  startGateway,
} from './gateway';
export {
  PREFIX_ROUTES,
  ROUTES,
  type PrefixRoute,
  type Route,
  type Scope,
  type ServiceName,
} from './route-table';
export { type OpenApiOptions, openApiDocument } from './openapi-document';
export { openApiEndpoint } from './openapi/openapi-endpoint';
export { knownQueryParameters } from './openapi/known-query-parameters';
