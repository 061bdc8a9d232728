// The approvals service: its own parts (chains, the approval flow, the preview, routes and the
// consumer of order and user events) on the shared assembly of @ordering/service.
import { CustomersDirectory } from '@ordering/customers-client';
import type { ConsumerTuning, ConsumerRunner } from '@ordering/messaging';
import {
  type AssembledService,
  type Clock,
  type ServiceOptions,
  assembleService,
  consumerFetchTuning,
  consumerReadiness,
  startService,
  systemClock,
} from '@ordering/service';
import { migrations } from '../migrations';
import type { ApprovalsConfig } from './config';
import { ApprovalsDatabase } from './data-access/approvals-database';
import { OrderQuoteClient } from './data-access/order-quote-client';
import { type UseCases, createUseCases } from './domain/use-cases';
import { mountRoutes } from './entry-points/http/routes';
import { approvalsConsumer } from './entry-points/messaging/approvals-consumer';

export interface ApprovalsServiceOptions extends ServiceOptions {
  clock?: Clock;
  consumerTuning?: ConsumerTuning;
}

export type ApprovalsService = AssembledService<{
  useCases: UseCases;
  db: ApprovalsDatabase;
  consumer: ConsumerRunner;
}>;

export function buildApprovalsService(
  config: ApprovalsConfig,
  options: ApprovalsServiceOptions = {},
): Promise<ApprovalsService> {
  const clock = options.clock ?? systemClock;
  return assembleService(config, { ...options, migrations }, ({ knex, kafka, logger }) => {
    const upstream = { secret: config.INTERNAL_IDENTITY_SECRET, timeoutMs: config.UPSTREAM_TIMEOUT_MS };
    const db = new ApprovalsDatabase(knex);
    const useCases = createUseCases({
      db,
      clock,
      logger,
      directory: new CustomersDirectory({ ...upstream, baseUrl: config.CUSTOMERS_URL, caller: 'approvals' }),
      quotes: new OrderQuoteClient({ ...upstream, baseUrl: config.ORDERS_URL }),
    });
    const consumer = approvalsConsumer({
      kafka,
      knex,
      db,
      flow: useCases.flow,
      groupId: config.KAFKA_GROUP_ID,
      fromBeginning: config.KAFKA_FROM_BEGINNING,
      logger,
      tuning: { ...consumerFetchTuning(config), ...options.consumerTuning },
    });
    return {
      outbox: true,
      readiness: [consumerReadiness(consumer)],
      routes: (app) => mountRoutes(app, { useCases, identitySecret: config.INTERNAL_IDENTITY_SECRET }),
      entryPoints: [consumer],
      parts: { useCases, db, consumer },
    };
  });
}

export const startApprovalsService = (config: ApprovalsConfig, options: ApprovalsServiceOptions = {}) =>
  startService(buildApprovalsService(config, options));
