// The local platform in one place: which processes run, on which fixed ports (each overridable by
// environment), and the environment each one gets. Used by `./dev up`.
import fs from 'node:fs';
import path from 'node:path';

export const repoRoot = path.resolve(__dirname, '..', '..');

function portFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const port = Number(raw);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new Error(`${name} must be a TCP port (1..65535), got '${raw}'`);
  }
  return port;
}

export const ports = {
  gateway: portFromEnv('GATEWAY_PORT', 8080),
  auth: portFromEnv('AUTH_PORT', 8090),
  orders: portFromEnv('ORDERS_PORT', 8101),
  catalog: portFromEnv('CATALOG_PORT', 8102),
  customers: portFromEnv('CUSTOMERS_PORT', 8103),
  approvals: portFromEnv('APPROVALS_PORT', 8104),
  webhooks: portFromEnv('WEBHOOKS_PORT', 8105),
  portal: portFromEnv('PORTAL_PORT', 8110),
  kafka: portFromEnv('KAFKA_PORT', 19092),
  kafkaController: portFromEnv('KAFKA_CONTROLLER_PORT', 19093),
  zipkin: portFromEnv('ZIPKIN_PORT', 9411),
};

export type ServiceName = 'auth' | 'orders' | 'catalog' | 'customers' | 'approvals' | 'webhooks';
export const SERVICE_NAMES: ServiceName[] = [
  'customers',
  'catalog',
  'auth',
  'orders',
  'approvals',
  'webhooks',
];

export interface StackSettings {
  kafkaBrokers: string[];
  pgBaseUrl: string;
  /** Databases are `<prefix><service>`; default `ordering_`. */
  databasePrefix: string;
  /** Prefix of the gateway's and the auth service's Redis keys; default none. */
  redisKeyPrefix: string;
  redisUrl: string;
  internalIdentitySecret: string;
  authIssuer: string;
  apiAudience: string;
}

export function defaultSettings(): StackSettings {
  return {
    kafkaBrokers: [`127.0.0.1:${ports.kafka}`],
    pgBaseUrl: process.env.DATABASE_BASE_URL ?? 'postgres://postgres@127.0.0.1:5432',
    databasePrefix: process.env.DATABASE_NAME_PREFIX ?? 'ordering_',
    redisKeyPrefix: process.env.REDIS_KEY_PREFIX ?? '',
    redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
    // Local development secret only; production takes it from a Kubernetes Secret.
    internalIdentitySecret:
      process.env.INTERNAL_IDENTITY_SECRET ?? 'local-dev-internal-identity-secret-change-me',
    authIssuer: process.env.AUTH_ISSUER ?? `http://127.0.0.1:${ports.auth}`,
    apiAudience: process.env.API_AUDIENCE ?? `http://127.0.0.1:${ports.gateway}`,
  };
}

export const serviceUrl = (name: ServiceName | 'gateway'): string => `http://127.0.0.1:${ports[name]}`;

/** A process of the local stack: a bundled service (dist/start.js) and its environment. */
export interface StackProcess {
  name: ServiceName | 'gateway' | 'developer-portal';
  dir: string;
  port: number;
  env: Record<string, string>;
  database?: string;
}

/** Services that exist in this checkout (a folder with a package.json), in start order, then the gateway. */
export function stackProcesses(settings: StackSettings): StackProcess[] {
  const common = {
    KAFKA_BROKERS: settings.kafkaBrokers.join(','),
    INTERNAL_IDENTITY_SECRET: settings.internalIdentitySecret,
    REDIS_URL: settings.redisUrl,
    REDIS_KEY_PREFIX: settings.redisKeyPrefix,
    AUTH_ISSUER: settings.authIssuer,
    API_AUDIENCE: settings.apiAudience,
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    NODE_ENV: 'development',
    HOST: '127.0.0.1',
    // Spans go to the local Zipkin (its UI is the banner's traces URL); a cluster exports OTLP.
    OTEL_TRACES_EXPORTER: 'zipkin',
    OTEL_EXPORTER_ZIPKIN_ENDPOINT: `http://127.0.0.1:${ports.zipkin}/api/v2/spans`,
  };
  const serviceUrls = Object.fromEntries(
    SERVICE_NAMES.map((name) => [`${name.toUpperCase()}_URL`, serviceUrl(name)]),
  );
  const existing = SERVICE_NAMES.filter((name) =>
    fs.existsSync(path.join(repoRoot, 'services', name, 'package.json')),
  );
  // Settings of one service on a laptop only (production refuses them).
  const localOnly: Partial<Record<ServiceName, Record<string, string>>> = {
    // Webhook receivers at http://127.0.0.1 / http://localhost, so an integrator can try webhooks locally.
    webhooks: { WEBHOOKS_ALLOW_LOCAL_HTTP: 'true' },
  };
  const services: StackProcess[] = existing.map((name) => ({
    name,
    dir: path.join(repoRoot, 'services', name),
    port: ports[name],
    database: `${settings.databasePrefix}${name}`,
    env: {
      ...common,
      ...serviceUrls,
      SERVICE_NAME: name,
      OTEL_SERVICE_NAME: name,
      PORT: String(ports[name]),
      DATABASE_URL: `${settings.pgBaseUrl}/${settings.databasePrefix}${name}`,
      ...localOnly[name],
    },
  }));
  const gateway: StackProcess = {
    name: 'gateway',
    dir: path.join(repoRoot, 'gateway'),
    port: ports.gateway,
    env: {
      ...common,
      // Only the services that run are routed; the others answer 503 service_unavailable.
      ...Object.fromEntries(existing.map((name) => [`${name.toUpperCase()}_URL`, serviceUrl(name)])),
      SERVICE_NAME: 'gateway',
      OTEL_SERVICE_NAME: 'gateway',
      PORT: String(ports.gateway),
      AUTH_JWKS_URL: `${settings.authIssuer}/oauth/jwks.json`,
    },
  };
  return [...services, gateway, ...portalProcess(settings, common)];
}

/** The developer portal's own OAuth client in the local stack (registered by the auth seeder). */
export const LOCAL_PORTAL_CLIENT = {
  clientId: 'developer-portal',
  // Local development secret only (the portal's default); production registers its own.
  secret: 'local-dev-portal-client-secret-change-me',
};

export const portalUrl = (): string => `http://127.0.0.1:${ports.portal}`;

/** The developer portal, after the gateway (it calls the API and signs in at the auth service). */
function portalProcess(settings: StackSettings, common: Record<string, string>): StackProcess[] {
  const dir = path.join(repoRoot, 'services', 'developer-portal');
  if (!fs.existsSync(path.join(dir, 'package.json'))) return [];
  return [
    {
      name: 'developer-portal',
      dir,
      port: ports.portal,
      env: {
        ...common,
        SERVICE_NAME: 'developer-portal',
        OTEL_SERVICE_NAME: 'developer-portal',
        PORT: String(ports.portal),
        PORTAL_PUBLIC_URL: portalUrl(),
        GATEWAY_URL: serviceUrl('gateway'),
        PORTAL_CLIENT_ID: LOCAL_PORTAL_CLIENT.clientId,
        PORTAL_CLIENT_SECRET: LOCAL_PORTAL_CLIENT.secret,
      },
    },
  ];
}
