// The internal API other services call (never routed by the gateway): pricing for orders, and the
// per-account views of one item for the webhooks service's `catalog.item.updated` deliveries.
import { Router } from 'express';
import {
  CATALOG_ITEM_VIEWS_PATH,
  CATALOG_PRICES_PATH,
  CatalogItemViewsRequest,
  PriceLinesRequest,
} from '@ordering/contracts';
import { parseBody } from '@ordering/http';
import type { CatalogQueries } from '../../domain/catalog-queries-use-case';

export function internalRoutes(queries: CatalogQueries): Router {
  const router = Router();

  router.post(CATALOG_PRICES_PATH, async (req, res) => {
    res.json(await queries.price(parseBody(PriceLinesRequest, req.body)));
  });

  router.post(CATALOG_ITEM_VIEWS_PATH, async (req, res) => {
    res.json(await queries.viewsOf(parseBody(CatalogItemViewsRequest, req.body)));
  });

  return router;
}
