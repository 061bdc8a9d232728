// The one table of what the gateway routes: method + path pattern under /v1 -> the service that
// answers it and the scopes a token needs (any of them; `admin:all` implies every scope).
// Anything not listed here is never forwarded: internal and operator endpoints of the services
// stay unreachable from outside. Path parameters are written `{name}` and match one segment.

export type ServiceName = 'orders' | 'catalog' | 'customers' | 'approvals' | 'webhooks' | 'auth';

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type Scope =
  'orders:read' | 'orders:write' | 'catalog:read' | 'users:read' | 'users:write' | 'admin:all';

export interface UpstreamRoute {
  method: HttpMethod;
  path: string;
  service: ServiceName;
  /** The token needs one of these (or `admin:all`). */
  scopes: readonly Scope[];
  summary: string;
}

/** Routes the gateway answers itself, without a token. */
export interface GatewayRoute {
  method: HttpMethod;
  path: string;
  service: 'gateway';
  scopes: readonly [];
  summary: string;
}

export type Route = UpstreamRoute | GatewayRoute;

/**
 * Every path under `prefix` (one or more further segments) with one of `methods`, forwarded as is.
 * For a protocol with its own discovery and paths (SCIM 2.0), which the OpenAPI document leaves out.
 */
export interface PrefixRoute {
  prefix: string;
  methods: readonly HttpMethod[];
  service: ServiceName;
  scopes: readonly Scope[];
  summary: string;
}

export const ROUTES: readonly Route[] = [
  // The machine-readable description (served by the gateway, no token).
  { method: 'GET', path: '/v1/openapi.json', service: 'gateway', scopes: [], summary: 'OpenAPI description' },

  // Orders
  { method: 'GET', path: '/v1/orders', service: 'orders', scopes: ['orders:read'], summary: 'List orders' },
  {
    method: 'POST',
    path: '/v1/orders',
    service: 'orders',
    scopes: ['orders:write'],
    summary: 'Create an order',
  },
  {
    method: 'GET',
    path: '/v1/orders/{id}',
    service: 'orders',
    scopes: ['orders:read'],
    summary: 'Retrieve an order',
  },
  {
    method: 'POST',
    path: '/v1/orders/{id}/cancel',
    service: 'orders',
    scopes: ['orders:write'],
    summary: 'Cancel an order',
  },

  // Catalog (as seen by one customer account)
  {
    method: 'GET',
    path: '/v1/catalog/items',
    service: 'catalog',
    scopes: ['catalog:read'],
    summary: 'List catalog items',
  },
  {
    method: 'GET',
    path: '/v1/catalog/items/{id}',
    service: 'catalog',
    scopes: ['catalog:read'],
    summary: 'Retrieve a catalog item',
  },

  // Customer accounts (the token's account and its descendants)
  {
    method: 'GET',
    path: '/v1/customers',
    service: 'customers',
    scopes: ['orders:read', 'admin:all'],
    summary: 'List customer accounts',
  },
  {
    method: 'GET',
    path: '/v1/customers/{cust_id}',
    service: 'customers',
    scopes: ['orders:read', 'admin:all'],
    summary: 'Retrieve a customer account',
  },
  {
    method: 'GET',
    path: '/v1/customers/{cust_id}/approval_chain',
    service: 'approvals',
    scopes: ['admin:all'],
    summary: "Retrieve an account's approval chain",
  },
  {
    method: 'PUT',
    path: '/v1/customers/{cust_id}/approval_chain',
    service: 'approvals',
    scopes: ['admin:all'],
    summary: "Replace an account's approval chain",
  },

  // Users (shoppers), kept by the customers service
  { method: 'GET', path: '/v1/users', service: 'customers', scopes: ['users:read'], summary: 'List users' },
  {
    method: 'POST',
    path: '/v1/users',
    service: 'customers',
    scopes: ['users:write'],
    summary: 'Create a user',
  },
  {
    method: 'GET',
    path: '/v1/users/{login}',
    service: 'customers',
    scopes: ['users:read'],
    summary: 'Retrieve a user',
  },
  {
    method: 'PATCH',
    path: '/v1/users/{login}',
    service: 'customers',
    scopes: ['users:write'],
    summary: 'Update a user',
  },
  {
    method: 'POST',
    path: '/v1/users/{login}/deactivate',
    service: 'customers',
    scopes: ['users:write'],
    summary: 'Deactivate a user',
  },

  // Approvals
  {
    method: 'GET',
    path: '/v1/approvals',
    service: 'approvals',
    scopes: ['orders:read'],
    summary: "List an approver's pending approvals",
  },
  {
    method: 'POST',
    path: '/v1/approvals/preview',
    service: 'approvals',
    scopes: ['orders:write'],
    summary: 'Preview the approval of a draft order',
  },
  {
    method: 'POST',
    path: '/v1/approvals/{approval_id}/approve',
    service: 'approvals',
    scopes: ['orders:write'],
    summary: 'Approve',
  },
  {
    method: 'POST',
    path: '/v1/approvals/{approval_id}/reject',
    service: 'approvals',
    scopes: ['orders:write'],
    summary: 'Reject',
  },

  // OAuth clients of the account and their secrets (account admins; the auth service keeps them)
  {
    method: 'GET',
    path: '/v1/oauth_clients',
    service: 'auth',
    scopes: ['admin:all'],
    summary: "List the account's OAuth clients",
  },
  {
    method: 'GET',
    path: '/v1/oauth_clients/{id}',
    service: 'auth',
    scopes: ['admin:all'],
    summary: 'Retrieve an OAuth client',
  },
  {
    method: 'POST',
    path: '/v1/oauth_clients/{id}/rotate_secret',
    service: 'auth',
    scopes: ['admin:all'],
    summary: "Rotate an OAuth client's secret",
  },

  // Webhook subscriptions (account admins)
  {
    method: 'GET',
    path: '/v1/webhooks',
    service: 'webhooks',
    scopes: ['admin:all'],
    summary: 'List webhook subscriptions',
  },
  {
    method: 'POST',
    path: '/v1/webhooks',
    service: 'webhooks',
    scopes: ['admin:all'],
    summary: 'Create a webhook subscription',
  },
  {
    method: 'GET',
    path: '/v1/webhooks/{id}',
    service: 'webhooks',
    scopes: ['admin:all'],
    summary: 'Retrieve a webhook subscription',
  },
  {
    method: 'PATCH',
    path: '/v1/webhooks/{id}',
    service: 'webhooks',
    scopes: ['admin:all'],
    summary: 'Update a webhook subscription',
  },
  {
    method: 'DELETE',
    path: '/v1/webhooks/{id}',
    service: 'webhooks',
    scopes: ['admin:all'],
    summary: 'Delete a webhook subscription',
  },
  {
    method: 'POST',
    path: '/v1/webhooks/{id}/rotate_secret',
    service: 'webhooks',
    scopes: ['admin:all'],
    summary: 'Rotate the signing secret',
  },
  {
    method: 'POST',
    path: '/v1/webhooks/{id}/test',
    service: 'webhooks',
    scopes: ['admin:all'],
    summary: 'Send a test event',
  },
  {
    method: 'GET',
    path: '/v1/webhooks/{id}/deliveries',
    service: 'webhooks',
    scopes: ['admin:all'],
    summary: "List a subscription's deliveries and their attempts",
  },
  {
    method: 'GET',
    path: '/v1/webhooks/{id}/deliveries/{delivery_id}',
    service: 'webhooks',
    scopes: ['admin:all'],
    summary: 'Retrieve a delivery with its attempts',
  },
  {
    method: 'POST',
    path: '/v1/webhooks/{id}/replay',
    service: 'webhooks',
    scopes: ['admin:all'],
    summary: 'Replay the failed deliveries of a time range',
  },
  {
    method: 'POST',
    path: '/v1/webhooks/{id}/deliveries/{delivery_id}/replay',
    service: 'webhooks',
    scopes: ['admin:all'],
    summary: 'Replay a delivery',
  },
];

/**
 * SCIM 2.0 (RFC 7644), the standard provisioning feed of identity providers, kept by the customers
 * service: `/scim/v2/Users`, `/Users/{id}`, `/ServiceProviderConfig`, `/ResourceTypes`, `/Schemas`.
 * The bearer token is verified and the identity header sent as for /v1; errors from the service are
 * in the SCIM error format, the gateway's own (401, 403, 429, 503) in the API's.
 */
export const PREFIX_ROUTES: readonly PrefixRoute[] = [
  {
    prefix: '/scim/v2',
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    service: 'customers',
    scopes: ['users:write'],
    summary: 'SCIM 2.0 provisioning of users',
  },
];
