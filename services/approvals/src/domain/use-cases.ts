// The service's use cases, wired to its database, the services it asks and the clock.
import type { ApprovalsDatabase } from '../data-access/approvals-database';
import { ApprovalFlowUseCase } from './approval-flow-use-case';
import { ChainUseCase } from './chain-use-case';
import type { Clock, Directory, OrderQuotes } from './ports';
import { PreviewUseCase } from './preview-use-case';

export interface UseCases {
  chains: ChainUseCase;
  flow: ApprovalFlowUseCase;
  preview: PreviewUseCase;
}

export function createUseCases(deps: {
  db: ApprovalsDatabase;
  directory: Directory;
  quotes: OrderQuotes;
  clock: Clock;
  logger?: { warn(obj: object, msg: string): void };
}): UseCases {
  const chains = new ChainUseCase(deps);
  return {
    chains,
    flow: new ApprovalFlowUseCase({ ...deps, chains }),
    preview: new PreviewUseCase({ quotes: deps.quotes, chains }),
  };
}
