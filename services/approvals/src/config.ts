// The approvals service's environment, checked at start-up.
import { env, loadConfig } from '@ordering/config';
import { consumerEnv, outboxEnv, serviceEnv } from '@ordering/service';
import { z } from 'zod';

export const APPROVALS_PORT = 8104;

export const approvalsEnv = z.object({
  ...serviceEnv({ name: 'approvals', port: APPROVALS_PORT }),
  ...outboxEnv,
  ...consumerEnv('approvals'),
  CUSTOMERS_URL: env.url('http://127.0.0.1:8103'),
  ORDERS_URL: env.url('http://127.0.0.1:8101'),
  /** Bound on one call to the customers or orders service. */
  UPSTREAM_TIMEOUT_MS: env.int(3000).pipe(z.number().int().min(100)),
});

export type ApprovalsConfig = z.infer<typeof approvalsEnv>;

export function loadApprovalsConfig(source: NodeJS.ProcessEnv = process.env): ApprovalsConfig {
  return loadConfig(approvalsEnv, source);
}
