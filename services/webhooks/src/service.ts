// The webhooks service assembled: database (created and migrated), the domain-event consumer and
// the HTTP app. `startWebhooksService` runs it in-process (tests, e2e); start.ts runs the same entry
// points under runService (production).
import type { Knex } from 'knex';
import { databaseReadinessCheck, openServiceDatabase } from '@ordering/db';
import {
  type EntryPoint,
  type Logger,
  createApp,
  createLogger,
  httpEntryPoint,
  startInProcess,
} from '@ordering/http';
import { KafkaHealth, createKafka, type ConsumerRunner } from '@ordering/messaging';
import { migrations } from '../migrations';
import type { WebhooksConfig } from './config';
import { AccountEventRepository } from './data-access/account-event-repository';
import { recordEventUseCase } from './domain/record-event-use-case';
import { mountRoutes } from './entry-points/http/routes';
import { domainEventsConsumer } from './entry-points/messaging/domain-events-consumer';

export interface WebhooksService {
  entryPoints: EntryPoint[];
  knex: Knex;
  events: AccountEventRepository;
  consumer: ConsumerRunner;
  url(): string;
  close(): Promise<void>;
}

export async function buildWebhooksService(
  config: WebhooksConfig,
  options: { logger?: Logger } = {},
): Promise<WebhooksService> {
  const logger = options.logger ?? createLogger({ service: config.SERVICE_NAME, level: config.LOG_LEVEL });
  const knex = await openServiceDatabase({
    url: config.DATABASE_URL,
    service: config.SERVICE_NAME,
    pool: { max: config.DATABASE_POOL_MAX },
    logger,
    migrations,
  });

  const events = new AccountEventRepository(knex);
  const kafka = createKafka({ clientId: config.SERVICE_NAME, brokers: config.KAFKA_BROKERS, logger });
  const kafkaHealth = new KafkaHealth(kafka);
  const consumer = domainEventsConsumer({
    kafka,
    knex,
    groupId: config.KAFKA_GROUP_ID,
    fromBeginning: config.KAFKA_FROM_BEGINNING,
    recordEvent: recordEventUseCase(events),
    logger,
  });
  const app = createApp({
    service: config.SERVICE_NAME,
    logger,
    // Ready once the consumer has its partitions: from then on no new event is missed.
    readiness: [
      databaseReadinessCheck(knex),
      kafkaHealth,
      { name: 'consumer', check: () => consumer.waitForGroupJoin(500) },
    ],
    routes: (a) => mountRoutes(a, { events, identitySecret: config.INTERNAL_IDENTITY_SECRET }),
  });
  const http = httpEntryPoint(app, { port: config.PORT, host: config.HOST, logger });

  return {
    entryPoints: [consumer, http],
    knex,
    events,
    consumer,
    url: () => http.url(),
    close: async () => {
      await kafkaHealth.stop();
      await knex.destroy();
    },
  };
}

/** Starts the service in-process; `stop()` stops the entry points in reverse and closes the rest. */
export async function startWebhooksService(
  config: WebhooksConfig,
  options: { logger?: Logger } = {},
): Promise<WebhooksService & { stop(): Promise<void> }> {
  const logger = options.logger ?? createLogger({ service: config.SERVICE_NAME, level: config.LOG_LEVEL });
  const service = await buildWebhooksService(config, { logger });
  const running = await startInProcess(service, { service: config.SERVICE_NAME, logger });
  return { ...service, stop: running.stop };
}
