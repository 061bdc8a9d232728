// The orders service's environment, checked at start-up.
import { env, loadConfig } from '@ordering/config';
import { FETCH_AT_ONCE, consumerEnv, outboxEnv, serviceEnv } from '@ordering/service';
import { z } from 'zod';

export const ORDERS_PORT = 8101;

export const ordersEnv = z.object({
  ...serviceEnv({ name: 'orders', port: ORDERS_PORT }),
  ...outboxEnv,
  // The order feed (approval steps and outcomes, fulfilment) is read at once, not batched: an
  // approver who sees an approval in their queue can read its order, and few messages come anyway.
  ...consumerEnv('orders', FETCH_AT_ONCE),
  CUSTOMERS_URL: env.url('http://127.0.0.1:8103'),
  CATALOG_URL: env.url('http://127.0.0.1:8102'),
  APPROVALS_URL: env.url('http://127.0.0.1:8104'),
  /**
   * How long the placement path reuses an account (addresses, currency, approval threshold) and a
   * user (name) read from the customers service; 0 reads them on every order. See the README.
   */
  CUSTOMER_CACHE_TTL_MS: env.int(5000).pipe(z.number().int().min(0).max(60_000)),
  /** Bound on one call to the customers, catalog or approvals service. */
  UPSTREAM_TIMEOUT_MS: env.int(3000).pipe(z.number().int().min(100)),
});

export type OrdersConfig = z.infer<typeof ordersEnv>;

export function loadOrdersConfig(source: NodeJS.ProcessEnv = process.env): OrdersConfig {
  return loadConfig(ordersEnv, source);
}
