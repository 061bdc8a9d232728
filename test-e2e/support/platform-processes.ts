// The auth service and the gateway as their own processes, wired to each other and to a customers
// service, as `./dev up` runs them: the gateway verifies the auth service's tokens (its JWKS and
// issuer), both share the Redis key prefix of the denylist, and every process the internal secret.
import { freePort } from '@ordering/testing';
import { startServiceProcess, type ServiceProcess } from './service-process';

export interface AuthProcessOptions {
  databaseUrl: string;
  brokers: string;
  secret: string;
  customersUrl: string;
  audience: string;
  redisPrefix: string;
  consumerGroup: string;
  /** Extra environment (e.g. KAFKA_FROM_BEGINNING, SIGN_IN_MAX_FAILURES). */
  env?: Record<string, string>;
}

/** The auth service on a port chosen first, so that its issuer URL is known before it starts. */
export async function startAuthProcess(
  options: AuthProcessOptions,
): Promise<ServiceProcess & { issuer: string }> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const auth = await startServiceProcess(
    'services/auth',
    {
      DATABASE_URL: options.databaseUrl,
      KAFKA_BROKERS: options.brokers,
      KAFKA_CONSUMER_GROUP: options.consumerGroup,
      INTERNAL_IDENTITY_SECRET: options.secret,
      CUSTOMERS_URL: options.customersUrl,
      AUTH_ISSUER: issuer,
      API_AUDIENCE: options.audience,
      REDIS_KEY_PREFIX: options.redisPrefix,
      ...options.env,
    },
    { port },
  );
  return Object.assign(auth, { issuer });
}

/** The gateway in front of the customers service (the other services are not running: 503). */
export function startGatewayProcess(options: {
  issuer: string;
  jwksUrl?: string;
  audience: string;
  secret: string;
  customersUrl: string;
  redisPrefix: string;
  /** The auth service's API (`/v1/oauth_clients`); unset: those routes answer 503. */
  authUrl?: string;
}): Promise<ServiceProcess> {
  return startServiceProcess('gateway', {
    ...(options.authUrl ? { AUTH_URL: options.authUrl } : {}),
    AUTH_JWKS_URL: options.jwksUrl ?? `${options.issuer}/oauth/jwks.json`,
    AUTH_ISSUER: options.issuer,
    API_AUDIENCE: options.audience,
    INTERNAL_IDENTITY_SECRET: options.secret,
    CUSTOMERS_URL: options.customersUrl,
    REDIS_KEY_PREFIX: options.redisPrefix,
  });
}

/** The customers service (a cheap password hash: tests sign in often). */
export function startCustomersProcess(options: {
  databaseUrl: string;
  brokers: string;
  secret: string;
  env?: Record<string, string>;
}): Promise<ServiceProcess> {
  return startServiceProcess('services/customers', {
    DATABASE_URL: options.databaseUrl,
    KAFKA_BROKERS: options.brokers,
    INTERNAL_IDENTITY_SECRET: options.secret,
    PASSWORD_HASH_COST: '10',
    ...options.env,
  });
}

/** The gateway in front of every service it routes (those not given answer 503). */
export function startFullGatewayProcess(options: {
  issuer: string;
  jwksUrl?: string;
  audience: string;
  secret: string;
  redisPrefix: string;
  urls: Partial<
    Record<'CUSTOMERS_URL' | 'ORDERS_URL' | 'APPROVALS_URL' | 'CATALOG_URL' | 'WEBHOOKS_URL', string>
  >;
  env?: Record<string, string>;
}): Promise<ServiceProcess> {
  return startServiceProcess('gateway', {
    AUTH_JWKS_URL: options.jwksUrl ?? `${options.issuer}/oauth/jwks.json`,
    AUTH_ISSUER: options.issuer,
    API_AUDIENCE: options.audience,
    INTERNAL_IDENTITY_SECRET: options.secret,
    REDIS_KEY_PREFIX: options.redisPrefix,
    ...options.urls,
    ...options.env,
  });
}

/** The orders service (its own consumer group; only new fulfilment updates and approval outcomes). */
export function startOrdersProcess(
  options: {
    databaseUrl: string;
    brokers: string;
    secret: string;
    customersUrl: string;
    catalogUrl: string;
    approvalsUrl: string;
    groupId: string;
    env?: Record<string, string>;
  },
  processOptions: { port?: number } = {},
): Promise<ServiceProcess> {
  return startServiceProcess(
    'services/orders',
    {
      DATABASE_URL: options.databaseUrl,
      KAFKA_BROKERS: options.brokers,
      INTERNAL_IDENTITY_SECRET: options.secret,
      CUSTOMERS_URL: options.customersUrl,
      CATALOG_URL: options.catalogUrl,
      APPROVALS_URL: options.approvalsUrl,
      KAFKA_GROUP_ID: options.groupId,
      KAFKA_FROM_BEGINNING: 'false',
      ...options.env,
    },
    processOptions,
  );
}

/** The approvals service (its own consumer group; only new order and user events). */
export function startApprovalsProcess(
  options: {
    databaseUrl: string;
    brokers: string;
    secret: string;
    customersUrl: string;
    ordersUrl: string;
    groupId: string;
    env?: Record<string, string>;
  },
  processOptions: { port?: number } = {},
): Promise<ServiceProcess> {
  return startServiceProcess(
    'services/approvals',
    {
      DATABASE_URL: options.databaseUrl,
      KAFKA_BROKERS: options.brokers,
      INTERNAL_IDENTITY_SECRET: options.secret,
      CUSTOMERS_URL: options.customersUrl,
      ORDERS_URL: options.ordersUrl,
      KAFKA_GROUP_ID: options.groupId,
      KAFKA_FROM_BEGINNING: 'false',
      ...options.env,
    },
    processOptions,
  );
}

/** The catalog service (pricing for orders, the public catalog). */
export function startCatalogProcess(options: {
  databaseUrl: string;
  brokers: string;
  secret: string;
  customersUrl: string;
  env?: Record<string, string>;
}): Promise<ServiceProcess> {
  return startServiceProcess('services/catalog', {
    DATABASE_URL: options.databaseUrl,
    KAFKA_BROKERS: options.brokers,
    INTERNAL_IDENTITY_SECRET: options.secret,
    CUSTOMERS_URL: options.customersUrl,
    ...options.env,
  });
}

/**
 * The webhooks service (its own consumer group; only new events), delivering to receivers on
 * http://127.0.0.1 as `./dev up` allows.
 */
export function startWebhooksProcess(options: {
  databaseUrl: string;
  brokers: string;
  secret: string;
  customersUrl: string;
  catalogUrl: string;
  groupId: string;
  env?: Record<string, string>;
}): Promise<ServiceProcess> {
  return startServiceProcess('services/webhooks', {
    DATABASE_URL: options.databaseUrl,
    KAFKA_BROKERS: options.brokers,
    INTERNAL_IDENTITY_SECRET: options.secret,
    CUSTOMERS_URL: options.customersUrl,
    CATALOG_URL: options.catalogUrl,
    KAFKA_GROUP_ID: options.groupId,
    KAFKA_FROM_BEGINNING: 'false',
    WEBHOOKS_ALLOW_LOCAL_HTTP: 'true',
    ...options.env,
  });
}
