// The webhooks service: its own parts (subscriptions, fan-out of domain events to deliveries, the
// delivery worker, routes) on the shared assembly of @ordering/service. `startWebhooksService` runs
// it in-process (tests, e2e); start.ts runs it as the production process.
import { periodicJob } from '@ordering/http';
import { CustomersDirectory } from '@ordering/customers-client';
import { IdempotencyStore } from '@ordering/idempotency';
import type { ConsumerRunner } from '@ordering/messaging';
import {
  type AssembledService,
  type ServiceOptions,
  assembleService,
  consumerFetchTuning,
  consumerReadiness,
  startService,
} from '@ordering/service';
import { migrations } from '../migrations';
import type { WebhooksConfig } from './config';
import { AccountEventRepository } from './data-access/account-event-repository';
import { type AttemptOutcome, DeliveryRepository } from './data-access/delivery-repository';
import { SubscriptionRepository } from './data-access/subscription-repository';
import { deliveryBodies } from './delivery/delivery-body';
import { type CatalogViewSource, CatalogViews } from './delivery/catalog-views';
import { HttpSender } from './delivery/http-sender';
import { type Resolver, UrlPolicy } from './delivery/url-policy';
import { catalogFanOutUseCase } from './domain/catalog-fan-out-use-case';
import { type DeliveriesUseCase, deliveriesUseCase } from './domain/deliveries-use-case';
import { type DeliveryClock, deliveryClock } from './domain/delivery-clock';
import { type LineageSource, fanOutUseCase } from './domain/fan-out-use-case';
import { SecretBox } from './domain/secret-box';
import { type SubscriptionsUseCase, subscriptionsUseCase } from './domain/subscriptions-use-case';
import { mountRoutes } from './entry-points/http/routes';
import { domainEventsConsumer } from './entry-points/messaging/domain-events-consumer';
import { DeliveryWorker } from './entry-points/workers/delivery-worker';

export interface WebhooksServiceOptions extends ServiceOptions {
  /** DNS of the URL checks (tests make names resolve to chosen addresses). */
  resolver?: Resolver;
  /** Account lineage (default: the customers service's internal API). */
  directory?: LineageSource;
  /** The item as an account sees it (default: the catalog service's internal API). */
  catalogViews?: CatalogViewSource;
  clock?: DeliveryClock;
  onAttempt?: (outcome: AttemptOutcome) => void;
}

export type WebhooksService = AssembledService<{
  events: AccountEventRepository;
  consumer: ConsumerRunner;
  subscriptions: SubscriptionsUseCase;
  deliveries: DeliveriesUseCase;
  worker: DeliveryWorker | undefined;
  clock: DeliveryClock;
}>;

export function buildWebhooksService(
  config: WebhooksConfig,
  options: WebhooksServiceOptions = {},
): Promise<WebhooksService> {
  return assembleService(config, { ...options, migrations }, ({ knex, kafka, logger }) => {
    const clock = options.clock ?? deliveryClock(config.DELIVERY_CLOCK_SPEED);
    const events = new AccountEventRepository(knex);
    const subscriptionRepo = new SubscriptionRepository(knex);
    const deliveryRepo = new DeliveryRepository(knex);
    const secrets = new SecretBox(config.SIGNING_SECRETS_KEY);
    const policy = new UrlPolicy({
      allowLocalHttp: config.WEBHOOKS_ALLOW_LOCAL_HTTP,
      ...(options.resolver ? { resolver: options.resolver } : {}),
    });
    const directory =
      options.directory ??
      new CustomersDirectory({
        baseUrl: config.CUSTOMERS_URL,
        secret: config.INTERNAL_IDENTITY_SECRET,
        caller: 'webhooks',
        lineageTtlMs: config.LINEAGE_TTL_MS,
      });
    const catalogViews =
      options.catalogViews ??
      new CatalogViews({ baseUrl: config.CATALOG_URL, secret: config.INTERNAL_IDENTITY_SECRET });
    // catalog.item.updated carries the item as the receiving account sees it, read when it is first sent.
    const bodyFor = deliveryBodies({ views: catalogViews, deliveries: deliveryRepo });
    const sender = new HttpSender(policy, config.DELIVERY_TIMEOUT_MS);
    const worker = config.DELIVERY_WORKER_ENABLED
      ? new DeliveryWorker({
          deliveries: deliveryRepo,
          subscriptions: subscriptionRepo,
          secrets,
          sender,
          clock,
          logger,
          concurrency: config.DELIVERY_CONCURRENCY,
          perEndpoint: config.DELIVERY_ENDPOINT_CONCURRENCY,
          timeoutMs: config.DELIVERY_TIMEOUT_MS,
          leaseMs: config.DELIVERY_LEASE_MS,
          pollMs: config.DELIVERY_POLL_MS,
          bodyFor,
          ...(options.onAttempt ? { onAttempt: options.onAttempt } : {}),
        })
      : undefined;
    const onDeliveryQueued = worker ? () => worker.wake() : undefined;
    const queued = onDeliveryQueued ? { onDeliveryQueued } : {};
    const subscriptions = subscriptionsUseCase({
      knex,
      subscriptions: subscriptionRepo,
      deliveries: deliveryRepo,
      secrets,
      policy,
      clock,
      logger,
      ...queued,
    });
    const deliveries = deliveriesUseCase({
      subscriptions: subscriptionRepo,
      deliveries: deliveryRepo,
      clock,
      ...queued,
    });
    const idempotency = new IdempotencyStore(knex);
    const consumer = domainEventsConsumer({
      kafka,
      knex,
      groupId: config.KAFKA_GROUP_ID,
      fromBeginning: config.KAFKA_FROM_BEGINNING,
      tuning: consumerFetchTuning(config),
      concurrency: config.CONSUMER_CONCURRENCY,
      recordEvent: fanOutUseCase({
        events,
        subscriptions: subscriptionRepo,
        deliveries: deliveryRepo,
        directory,
        clock,
        ...queued,
      }),
      catalogChange: catalogFanOutUseCase({
        subscriptions: subscriptionRepo,
        deliveries: deliveryRepo,
        directory,
        clock,
        ...queued,
      }),
      logger,
    });
    return {
      // Ready once the consumer has its partitions: from then on no new event is missed.
      readiness: [consumerReadiness(consumer)],
      routes: (app) =>
        mountRoutes(app, {
          events,
          subscriptions,
          deliveries,
          idempotency,
          identitySecret: config.INTERNAL_IDENTITY_SECRET,
        }),
      entryPoints: [
        consumer,
        ...(worker ? [worker] : []),
        periodicJob(
          'maintenance',
          async () => ({ idempotency_keys: await idempotency.purgeExpired() }),
          logger,
        ),
        { name: 'delivery-connections', start: async () => {}, stop: () => sender.close() },
      ],
      parts: { events, consumer, subscriptions, deliveries, worker, clock },
    };
  });
}

/** Starts the service in this process; `stop()` stops the entry points in reverse and closes the rest. */
export const startWebhooksService = (config: WebhooksConfig, options: WebhooksServiceOptions = {}) =>
  startService(buildWebhooksService(config, options));
