// The developer portal, assembled: Redis (sessions), the auth service as authorization server, the
// public API through the gateway, and the server-rendered pages. `startPortal` runs it in-process
// (tests); start.ts runs it as the production process.
import { Redis } from 'ioredis';
import { redisTlsFromEnv } from '@ordering/config';
import {
  createApp,
  createLogger,
  httpEntryPoint,
  startInProcess,
  type AssembledService,
  type Logger,
} from '@ordering/http';
import type { PortalConfig } from './config';
import { AuthServer } from './data-access/auth-server';
import { PlatformApi } from './data-access/platform-api';
import { SessionStore } from './data-access/session-store';
import { mountPortalRoutes } from './entry-points/http/portal-routes';

export interface BuiltPortal extends AssembledService {
  url(): string;
}

export async function buildPortal(
  config: PortalConfig,
  options: { logger?: Logger } = {},
): Promise<BuiltPortal> {
  const logger = options.logger ?? createLogger({ service: config.SERVICE_NAME, level: config.LOG_LEVEL });
  const redis = new Redis(config.REDIS_URL, {
    lazyConnect: true,
    maxRetriesPerRequest: 2,
    ...redisTlsFromEnv(),
  });
  await redis.connect();
  const publicUrl = new URL(config.PORTAL_PUBLIC_URL).origin;
  const auth = new AuthServer({
    issuer: config.AUTH_ISSUER,
    clientId: config.PORTAL_CLIENT_ID,
    clientSecret: config.PORTAL_CLIENT_SECRET,
    redirectUri: `${publicUrl}/callback`,
    timeoutMs: config.UPSTREAM_TIMEOUT_MS,
  });
  const deps = {
    sessions: new SessionStore(redis, config.REDIS_KEY_PREFIX, config.SESSION_IDLE_SECONDS),
    auth,
    api: new PlatformApi(config.GATEWAY_URL, config.UPSTREAM_TIMEOUT_MS),
    logger,
    publicUrl,
    cookieSecure: publicUrl.startsWith('https:'),
  };
  const app = createApp({
    service: config.SERVICE_NAME,
    logger,
    bodyLimit: '16kb',
    // The portal's pages post forms, read by portal-routes' own parser.
    otherMediaTypes: 'pass',
    readiness: [
      {
        name: 'redis',
        check: async () => {
          await redis.ping();
        },
      },
      {
        // Without the auth service nobody can sign in; signed-in admins still see pages.
        name: 'auth',
        check: () =>
          auth.check().then(
            () => undefined,
            (err: unknown) =>
              `degraded: ${err instanceof Error ? err.message : String(err)}; signing in is not possible`,
          ),
      },
    ],
    routes: (a) => {
      // One trusted hop (the ingress controller), as the auth service: X-Forwarded-For entries before
      // the one it wrote are the client's own.
      if (config.TRUST_PROXY) a.set('trust proxy', 1);
      mountPortalRoutes(a, deps);
    },
  });
  const http = httpEntryPoint(app, { port: config.PORT, host: config.HOST, logger });
  return {
    entryPoints: [http],
    url: () => http.url(),
    close: async () => {
      redis.disconnect();
      await Promise.resolve();
    },
  };
}

export interface RunningPortal {
  url: string;
  stop(): Promise<void>;
}

/** Starts the portal in this process (tests). */
export async function startPortal(
  config: PortalConfig,
  options: { logger?: Logger } = {},
): Promise<RunningPortal> {
  const logger = options.logger ?? createLogger({ service: config.SERVICE_NAME, level: config.LOG_LEVEL });
  const built = await buildPortal(config, { logger });
  const running = await startInProcess(built, { service: config.SERVICE_NAME, logger });
  return { url: built.url(), stop: running.stop };
}
