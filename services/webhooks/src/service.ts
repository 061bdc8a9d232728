// The webhooks service: its own parts (the event store, the domain-event consumer, routes) on the
// shared assembly of @ordering/service. `startWebhooksService` runs it in-process (tests, e2e);
// start.ts runs it as the production process.
import type { ConsumerRunner } from '@ordering/messaging';
import { type AssembledService, type ServiceOptions, assembleService, startService } from '@ordering/service';
import { migrations } from '../migrations';
import type { WebhooksConfig } from './config';
import { AccountEventRepository } from './data-access/account-event-repository';
import { recordEventUseCase } from './domain/record-event-use-case';
import { mountRoutes } from './entry-points/http/routes';
import { domainEventsConsumer } from './entry-points/messaging/domain-events-consumer';

export type WebhooksService = AssembledService<{ events: AccountEventRepository; consumer: ConsumerRunner }>;

export function buildWebhooksService(
  config: WebhooksConfig,
  options: ServiceOptions = {},
): Promise<WebhooksService> {
  return assembleService(config, { ...options, migrations }, ({ knex, kafka, logger }) => {
    const events = new AccountEventRepository(knex);
    const consumer = domainEventsConsumer({
      kafka,
      knex,
      groupId: config.KAFKA_GROUP_ID,
      fromBeginning: config.KAFKA_FROM_BEGINNING,
      recordEvent: recordEventUseCase(events),
      logger,
    });
    return {
      kafka: 'required',
      // Ready once the consumer has its partitions: from then on no new event is missed.
      readiness: [{ name: 'consumer', check: () => consumer.waitForGroupJoin(500) }],
      routes: (app) => mountRoutes(app, { events, identitySecret: config.INTERNAL_IDENTITY_SECRET }),
      entryPoints: [consumer],
      parts: { events, consumer },
    };
  });
}

/** Starts the service in this process; `stop()` stops the entry points in reverse and closes the rest. */
export const startWebhooksService = (config: WebhooksConfig, options: ServiceOptions = {}) =>
  startService(buildWebhooksService(config, options));
