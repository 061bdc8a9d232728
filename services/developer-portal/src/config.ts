// The portal's environment, validated at start-up (the process refuses to start on a bad value).
import { ConfigError, commonEnv, env, loadConfig, z } from '@ordering/config';

/** Local development secret of the portal's own OAuth client; a production process refuses it. */
export const LOCAL_DEV_PORTAL_CLIENT_SECRET = 'local-dev-portal-client-secret-change-me';

export const portalConfigSchema = z.object({
  ...commonEnv,
  SERVICE_NAME: env.string('developer-portal'),
  PORT: env.port(8110),
  HOST: env.string('0.0.0.0'),
  /**
   * The portal's origin as browsers reach it (`https://developers.ordering.example`): the redirect
   * URI `<origin>/callback`, the Origin forms must come from, and Secure cookies when https.
   */
  PORTAL_PUBLIC_URL: env.url('http://127.0.0.1:8110'),
  /** The OAuth host (token `iss`): discovery, the sign-in page, the token endpoint. */
  AUTH_ISSUER: env.url('http://127.0.0.1:8090'),
  /** The public API the portal calls with the signed-in admin's token (the gateway). */
  GATEWAY_URL: env.url('http://127.0.0.1:8080'),
  /** The portal's own first-party OAuth client (web, `--all-accounts`). */
  PORTAL_CLIENT_ID: env.string('developer-portal'),
  PORTAL_CLIENT_SECRET: z.string().min(16).default(LOCAL_DEV_PORTAL_CLIENT_SECRET),
  REDIS_URL: env.url('redis://127.0.0.1:6379'),
  /** Prefix of the portal's Redis keys (`<prefix>portal:session:...`). */
  REDIS_KEY_PREFIX: z.string().default(''),
  /** A session unused for this long ends (sliding). */
  SESSION_IDLE_SECONDS: env.int(8 * 3600).pipe(z.number().min(60)),
  /** Behind a TLS-terminating proxy: trust X-Forwarded-*. */
  TRUST_PROXY: env.bool(false),
  /** Longest an API or OAuth call may take. */
  UPSTREAM_TIMEOUT_MS: env.int(10_000).pipe(z.number().min(100)),
});

export type PortalConfig = z.infer<typeof portalConfigSchema>;

export function loadPortalConfig(source: NodeJS.ProcessEnv = process.env): PortalConfig {
  const config = loadConfig(portalConfigSchema, source);
  if (config.NODE_ENV === 'production') {
    if (config.PORTAL_CLIENT_SECRET === LOCAL_DEV_PORTAL_CLIENT_SECRET)
      throw new ConfigError([
        'PORTAL_CLIENT_SECRET must be set in production (the local default is refused)',
      ]);
    if (new URL(config.PORTAL_PUBLIC_URL).protocol !== 'https:')
      throw new ConfigError(['PORTAL_PUBLIC_URL must be https in production']);
  }
  return config;
}
