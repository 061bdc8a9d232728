// The webhooks service's environment, checked at start-up.
import { ConfigError, env, loadConfig } from '@ordering/config';
import { consumerEnv, serviceEnv } from '@ordering/service';
import { z } from 'zod';
import { decodeKey } from './domain/secret-box';

export const WEBHOOKS_PORT = 8105;

/** Lets the local stack and tests start without setting the key; a production process refuses it. */
export const LOCAL_DEV_SIGNING_SECRETS_KEY = Buffer.from('local-dev-webhook-secrets-key-32').toString(
  'base64',
);

export const webhooksEnv = z.object({
  ...serviceEnv({ name: 'webhooks', port: WEBHOOKS_PORT }),
  ...consumerEnv('webhooks.domain-events'),
  CUSTOMERS_URL: env.url('http://127.0.0.1:8103'),
  /** The catalog's internal API: the item as each subscribing account sees it (catalog.item.updated). */
  CATALOG_URL: env.url('http://127.0.0.1:8102'),
  /** 32 bytes, base64 or hex: AES-256-GCM key of the signing secrets at rest. */
  SIGNING_SECRETS_KEY: z
    .string()
    .refine((v) => decodeKey(v) !== undefined, 'must be 32 bytes in base64 or hex')
    .default(LOCAL_DEV_SIGNING_SECRETS_KEY),
  /**
   * Development only: accept `http://127.0.0.1`, `http://localhost` and `http://[::1]` receivers
   * (an integrator trying webhooks on a laptop). `./dev up` turns it on; production refuses it.
   */
  WEBHOOKS_ALLOW_LOCAL_HTTP: env.bool(false),
  /** Whether this replica runs delivery workers (every replica may; leases keep them apart). */
  DELIVERY_WORKER_ENABLED: env.bool(true),
  /** Deliveries in flight at once in this replica, over all endpoints. */
  DELIVERY_CONCURRENCY: env.int(256).pipe(z.number().int().min(1).max(10_000)),
  /** Deliveries in flight at once to one subscription's endpoint, per replica. */
  DELIVERY_ENDPOINT_CONCURRENCY: env.int(16).pipe(z.number().int().min(1).max(1000)),
  /** Longest wait for a receiver's answer (spec: 10 s). */
  DELIVERY_TIMEOUT_MS: env.int(10_000).pipe(z.number().int().min(100).max(10_000)),
  /**
   * How long a worker holds a delivery it leased (real time). A worker that dies mid-delivery
   * leaves it to another worker after this long; more than the timeout.
   */
  DELIVERY_LEASE_MS: env.int(60_000).pipe(z.number().int().min(1000)),
  /** How often an idle worker looks for due deliveries of other replicas and retries. */
  DELIVERY_POLL_MS: env.int(100).pipe(z.number().int().min(5).max(10_000)),
  /**
   * How many times faster than real time the retry schedule runs (1 in production; tests run the
   * whole 24 h horizon in seconds). The 10 s response timeout stays real time.
   */
  DELIVERY_CLOCK_SPEED: env.int(1).pipe(z.number().int().min(1).max(1_000_000)),
  /**
   * Kafka partitions whose events are fanned out at once (each in its own transaction; one
   * partition's events, hence one resource's, stay in order).
   */
  CONSUMER_CONCURRENCY: env.int(4).pipe(z.number().int().min(1).max(64)),
  /** How long an account's lineage (who receives its events) is reused. */
  LINEAGE_TTL_MS: env.int(10_000).pipe(z.number().int().min(0)),
});

export type WebhooksConfig = z.infer<typeof webhooksEnv>;

export function loadWebhooksConfig(source: NodeJS.ProcessEnv = process.env): WebhooksConfig {
  const config = loadConfig(webhooksEnv, source);
  if (config.NODE_ENV === 'production') {
    const problems = [
      config.SIGNING_SECRETS_KEY === LOCAL_DEV_SIGNING_SECRETS_KEY
        ? 'SIGNING_SECRETS_KEY is the local development value; set a secret one in production'
        : undefined,
      config.WEBHOOKS_ALLOW_LOCAL_HTTP
        ? 'WEBHOOKS_ALLOW_LOCAL_HTTP is a development setting; production delivers to public https only'
        : undefined,
      config.DELIVERY_CLOCK_SPEED !== 1
        ? 'DELIVERY_CLOCK_SPEED is a test setting; production runs at 1'
        : undefined,
    ].filter((p): p is string => p !== undefined);
    if (problems.length) throw new ConfigError(problems);
  }
  return config;
}
