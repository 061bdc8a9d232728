// The service's use cases, wired to its database, the other services it asks and the clock.
import type { OrdersDatabase } from '../data-access/orders-database';
import { OrderFeedUseCase } from './order-feed-use-case';
import { OrderQueriesUseCase } from './order-queries-use-case';
import { PlaceOrderUseCase } from './place-order-use-case';
import type { ApprovalChains, Clock, Directory, Pricing } from './ports';

export interface UseCases {
  placing: PlaceOrderUseCase;
  queries: OrderQueriesUseCase;
  feed: OrderFeedUseCase;
  directory: Directory;
  pricing: Pricing;
}

export function createUseCases(deps: {
  db: OrdersDatabase;
  directory: Directory;
  pricing: Pricing;
  chains: ApprovalChains;
  clock: Clock;
}): UseCases {
  return {
    placing: new PlaceOrderUseCase(deps),
    queries: new OrderQueriesUseCase(deps),
    feed: new OrderFeedUseCase(deps.clock),
    directory: deps.directory,
    pricing: deps.pricing,
  };
}
