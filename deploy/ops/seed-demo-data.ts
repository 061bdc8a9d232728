// Seeds the demo data set into the services that run, through their internal admin endpoints
// (the owning service writes its own database). Each service's seeder is added with its issue.
import type { StackProcess, StackSettings } from '../local/stack-definition';
import type { DemoData } from '../local/stack-file';
import { seedAuth } from './seeders/auth';
import { seedCatalog } from './seeders/catalog';
import { seedCustomers } from './seeders/customers';
import { seedOrders } from './seeders/orders';

export interface SeedContext {
  procs: StackProcess[];
  settings: StackSettings;
}

type Seeder = (ctx: SeedContext, demo: DemoData) => Promise<void>;

/** Seeders by service, run in this order for the services present. */
const seeders: [string, Seeder][] = [
  ['customers', seedCustomers],
  ['auth', seedAuth],
  ['catalog', seedCatalog],
  // The approval chain and demo orders (needs customers, catalog and approvals too).
  ['orders', (ctx) => seedOrders(ctx)],
];

export async function seedDemoData(ctx: SeedContext): Promise<DemoData> {
  const demo: DemoData = { customers: [], users: [], clients: [] };
  const running = new Set(ctx.procs.map((p) => p.name));
  for (const [service, seed] of seeders) {
    if (running.has(service as StackProcess['name'])) await seed(ctx, demo);
  }
  return demo;
}
