// The webhooks service's environment, checked at start-up.
import { loadConfig } from '@ordering/config';
import { consumerEnv, serviceEnv } from '@ordering/service';
import { z } from 'zod';

export const WEBHOOKS_PORT = 8105;

export const webhooksEnv = z.object({
  ...serviceEnv({ name: 'webhooks', port: WEBHOOKS_PORT }),
  ...consumerEnv('webhooks.domain-events'),
});

export type WebhooksConfig = z.infer<typeof webhooksEnv>;

export function loadWebhooksConfig(source: NodeJS.ProcessEnv = process.env): WebhooksConfig {
  return loadConfig(webhooksEnv, source);
}
