// The catalog service's environment, checked at start-up.
import { env, loadConfig } from '@ordering/config';
import { outboxEnv, serviceEnv } from '@ordering/service';
import { z } from 'zod';

export const CATALOG_PORT = 8102;

export const catalogEnv = z.object({
  ...serviceEnv({ name: 'catalog', port: CATALOG_PORT }),
  ...outboxEnv,
  /** The customers service's internal API (account lineage and currency). */
  CUSTOMERS_URL: env.url('http://127.0.0.1:8103'),
  /** How long an account's lineage is reused before it is asked again (a moved account's delay). */
  LINEAGE_CACHE_TTL_MS: env.int(10_000).pipe(z.number().int().min(0).max(300_000)),
});

export type CatalogConfig = z.infer<typeof catalogEnv>;

export function loadCatalogConfig(source: NodeJS.ProcessEnv = process.env): CatalogConfig {
  return loadConfig(catalogEnv, source);
}
