// The orders service: its own parts (use cases over the orders database, the clients of the
// customers, catalog and approvals services, the idempotency store, routes and the consumer of
// approval outcomes and fulfilment updates) on the shared assembly of @ordering/service.
import { periodicJob } from '@ordering/http';
import { CustomersDirectory } from '@ordering/customers-client';
import { IdempotencyStore } from '@ordering/idempotency';
import type { ConsumerTuning, ConsumerRunner } from '@ordering/messaging';
import {
  type AssembledService,
  type Clock,
  type ServiceOptions,
  assembleService,
  consumerFetchTuning,
  startService,
  systemClock,
} from '@ordering/service';
import { migrations } from '../migrations';
import type { OrdersConfig } from './config';
import { ApprovalChainClient } from './data-access/approval-chain-client';
import { CatalogPricingClient } from './data-access/catalog-pricing-client';
import { OrdersDatabase } from './data-access/orders-database';
import { type UseCases, createUseCases } from './domain/use-cases';
import { mountRoutes } from './entry-points/http/routes';
import { orderFeedConsumer } from './entry-points/messaging/order-feed-consumer';

export interface OrdersServiceOptions extends ServiceOptions {
  clock?: Clock;
  /** Consumer timings (tests shorten them). */
  consumerTuning?: ConsumerTuning;
}

export type OrdersService = AssembledService<{
  useCases: UseCases;
  db: OrdersDatabase;
  consumer: ConsumerRunner;
}>;

export function buildOrdersService(
  config: OrdersConfig,
  options: OrdersServiceOptions = {},
): Promise<OrdersService> {
  const clock = options.clock ?? systemClock;
  return assembleService(config, { ...options, migrations }, ({ knex, kafka, logger }) => {
    const upstream = { secret: config.INTERNAL_IDENTITY_SECRET, timeoutMs: config.UPSTREAM_TIMEOUT_MS };
    const db = new OrdersDatabase(knex);
    const useCases = createUseCases({
      db,
      clock,
      directory: new CustomersDirectory({
        ...upstream,
        baseUrl: config.CUSTOMERS_URL,
        caller: 'orders',
        accountTtlMs: config.CUSTOMER_CACHE_TTL_MS,
        userTtlMs: config.CUSTOMER_CACHE_TTL_MS,
      }),
      pricing: new CatalogPricingClient({ ...upstream, baseUrl: config.CATALOG_URL }),
      chains: new ApprovalChainClient({ ...upstream, baseUrl: config.APPROVALS_URL }),
    });
    const idempotency = new IdempotencyStore(knex, { now: () => clock.now() });
    const consumer = orderFeedConsumer({
      kafka,
      knex,
      db,
      feed: useCases.feed,
      groupId: config.KAFKA_GROUP_ID,
      fromBeginning: config.KAFKA_FROM_BEGINNING,
      logger,
      tuning: { ...consumerFetchTuning(config), ...options.consumerTuning },
    });
    return {
      // Orders are placed without Kafka (events wait in the outbox); the feed waits for it.
      outbox: true,
      routes: (app) =>
        mountRoutes(app, { useCases, idempotency, identitySecret: config.INTERNAL_IDENTITY_SECRET }),
      entryPoints: [
        consumer,
        periodicJob(
          'maintenance',
          async () => ({ idempotency_keys: await idempotency.purgeExpired() }),
          logger,
        ),
      ],
      parts: { useCases, db, consumer },
    };
  });
}

/** Builds, migrates and starts the service in this process; `stop()` stops it and closes the pool. */
export const startOrdersService = (config: OrdersConfig, options: OrdersServiceOptions = {}) =>
  startService(buildOrdersService(config, options));
