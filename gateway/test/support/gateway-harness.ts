// Starts the gateway in-process on port 0 against real upstream servers, a real JWKS endpoint and
// the real Redis, with a key prefix of its own so that parallel test files do not share buckets.
import { randomBytes } from 'node:crypto';
import { type GatewayConfig, loadGatewayConfig, startGateway } from '../../src';
import { type CapturedLogs, captureLogs } from './log-capture';
import { RecordingUpstream } from './recording-upstream';
import { TestIssuer } from './test-issuer';

export const IDENTITY_SECRET = 'test-identity-secret-of-at-least-32-characters';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export const SERVICES = ['orders', 'catalog', 'customers', 'approvals', 'webhooks', 'auth'] as const;
export type Upstreams = Record<(typeof SERVICES)[number], RecordingUpstream>;

export interface Harness {
  url: string;
  config: GatewayConfig;
  issuer: TestIssuer;
  upstreams: Upstreams;
  logs: CapturedLogs;
  keyPrefix: string;
  stop(): Promise<void>;
}

export interface HarnessOptions {
  /** Environment overrides (strings, as in the environment). */
  env?: Record<string, string | undefined>;
  /** Services left without a URL. */
  without?: (typeof SERVICES)[number][];
  issuer?: TestIssuer;
  /** Level of the captured logs; default warn. */
  logLevel?: string;
}

export async function startHarness(options: HarnessOptions = {}): Promise<Harness> {
  const issuer = options.issuer ?? (await new TestIssuer().start());
  const upstreams = Object.fromEntries(
    await Promise.all(
      SERVICES.map(async (name) => [name, await new RecordingUpstream(name).start()] as const),
    ),
  ) as Upstreams;
  const keyPrefix = `test:gateway:${randomBytes(6).toString('hex')}:`;
  const env: Record<string, string | undefined> = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'warn',
    PORT: '0',
    HOST: '127.0.0.1',
    AUTH_JWKS_URL: issuer.jwksUrl,
    AUTH_ISSUER: issuer.issuer,
    API_AUDIENCE: issuer.audience,
    INTERNAL_IDENTITY_SECRET: IDENTITY_SECRET,
    REDIS_URL,
    REDIS_KEY_PREFIX: keyPrefix,
    ...Object.fromEntries(
      SERVICES.filter((s) => !options.without?.includes(s)).map((s) => [
        `${s.toUpperCase()}_URL`,
        upstreams[s].url,
      ]),
    ),
    ...options.env,
  };
  const config = loadGatewayConfig(env as NodeJS.ProcessEnv);
  const logs = captureLogs(options.logLevel);
  const gateway = await startGateway(config, { logger: logs.logger });
  return {
    url: gateway.url,
    config,
    issuer,
    upstreams,
    logs,
    keyPrefix,
    async stop() {
      await gateway.stop();
      await Promise.all([
        ...Object.values(upstreams).map((u) => u.close()),
        options.issuer ? undefined : issuer.close(),
      ]);
    },
  };
}
