// The webhooks service's environment, checked at start-up.
import { commonEnv, env, loadConfig } from '@ordering/config';
import { databaseEnv } from '@ordering/db';
import { z } from 'zod';

export const WEBHOOKS_PORT = 8105;

export const webhooksEnv = z.object({
  ...commonEnv,
  SERVICE_NAME: env.string('webhooks'),
  PORT: env.port(WEBHOOKS_PORT),
  HOST: env.string('0.0.0.0'),
  ...databaseEnv,
  KAFKA_BROKERS: env.list(),
  INTERNAL_IDENTITY_SECRET: env.string(),
  /** Consumer group of the domain-event consumer (one per deployment). */
  KAFKA_GROUP_ID: env.string('webhooks.domain-events'),
  /** Where a new consumer group starts: the oldest retained event (default) or only new ones. */
  KAFKA_FROM_BEGINNING: env.bool(true),
});

export type WebhooksConfig = z.infer<typeof webhooksEnv>;

export function loadWebhooksConfig(source: NodeJS.ProcessEnv = process.env): WebhooksConfig {
  return loadConfig(webhooksEnv, source);
}
