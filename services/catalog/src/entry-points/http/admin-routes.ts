// Operator endpoints (`/internal/v1/admin/catalog/...`, never routed by the gateway; the CLI calls
// them): categories, items, visibility and availability rules, price lists and their assignment to
// accounts, and the all-or-nothing bulk import.
import { Router } from 'express';
import { requestObject } from '@ordering/contracts';
import { listEnvelope, pageOf, parseBody, parseListParams, pathParam, requestPath } from '@ordering/http';
import { z } from 'zod';
import {
  AssignmentInput,
  AvailabilityInput,
  CategoryInput,
  CreateItemInput,
  PriceListEntryInput,
  PriceListInput,
  UpdateCategoryInput,
  UpdateItemInput,
  VisibilityInput,
} from '../../domain/item-inputs';
import type { UseCases } from '../../domain/use-cases';

const ImportRequest = requestObject({ format: z.enum(['json', 'csv']), content: z.string().min(1) });

export const ADMIN_BASE = '/internal/v1/admin/catalog';
export const ADMIN_IMPORT_PATH = `${ADMIN_BASE}/items/import`;
/** An import file of 100,000 items is about 20 MB of JSON. */
export const IMPORT_BODY_LIMIT = '64mb';

export function adminRoutes(uc: UseCases): Router {
  const router = Router();
  const base = ADMIN_BASE;
  const list = <T>(url: string, data: T[]) => listEnvelope(url, data, false, null);

  router.get(`${base}/categories`, async (req, res) => {
    res.json(list(requestPath(req), await uc.admin.listCategories()));
  });
  router.post(`${base}/categories`, async (req, res) => {
    res.status(201).json(await uc.admin.createCategory(parseBody(CategoryInput, req.body)));
  });
  router.patch(`${base}/categories/:id`, async (req, res) => {
    res.json(await uc.admin.updateCategory(pathParam(req, 'id'), parseBody(UpdateCategoryInput, req.body)));
  });

  router.get(`${base}/items`, async (req, res) => {
    const params = parseListParams(req.query, { cursor: { c: 'text' } });
    const after = params.startingAfter?.c;
    const rows = await uc.admin.listItems({
      limit: params.limit + 1,
      ...(after === undefined ? {} : { afterCode: after }),
    });
    const page = pageOf(rows, params.limit, (i) => ({ c: i.item_code }));
    res.json(listEnvelope(requestPath(req), page.data, page.hasMore, page.nextCursor));
  });
  router.post(`${base}/items`, async (req, res) => {
    res.status(201).json(await uc.admin.createItem(parseBody(CreateItemInput, req.body)));
  });
  router.post(ADMIN_IMPORT_PATH, async (req, res) => {
    const { format, content } = parseBody(ImportRequest, req.body);
    res.json(await uc.bulkImport.importItems(format, content));
  });
  router.get(`${base}/items/:item`, async (req, res) => {
    res.json(await uc.admin.getItem(pathParam(req, 'item')));
  });
  router.patch(`${base}/items/:item`, async (req, res) => {
    res.json(await uc.admin.updateItem(pathParam(req, 'item'), parseBody(UpdateItemInput, req.body)));
  });
  router.put(`${base}/items/:item/visibility`, async (req, res) => {
    const { cust_ids } = parseBody(VisibilityInput, req.body);
    res.json(await uc.admin.setVisibility(pathParam(req, 'item'), cust_ids));
  });
  router.put(`${base}/items/:item/availability/:cust_id`, async (req, res) => {
    const { available } = parseBody(AvailabilityInput, req.body);
    res.json(await uc.admin.setAvailability(pathParam(req, 'item'), pathParam(req, 'cust_id'), available));
  });
  router.delete(`${base}/items/:item/availability/:cust_id`, async (req, res) => {
    res.json(await uc.admin.setAvailability(pathParam(req, 'item'), pathParam(req, 'cust_id'), null));
  });

  router.get(`${base}/price_lists`, async (req, res) => {
    res.json(list(requestPath(req), await uc.admin.listPriceLists()));
  });
  router.post(`${base}/price_lists`, async (req, res) => {
    res.status(201).json(await uc.admin.createPriceList(parseBody(PriceListInput, req.body)));
  });
  router.get(`${base}/price_lists/:id`, async (req, res) => {
    res.json(await uc.admin.getPriceList(pathParam(req, 'id')));
  });
  router.put(`${base}/price_lists/:id/items/:item`, async (req, res) => {
    const { pricing } = parseBody(PriceListEntryInput, req.body);
    res.json(await uc.admin.setPriceListEntry(pathParam(req, 'id'), pathParam(req, 'item'), pricing));
  });
  router.delete(`${base}/price_lists/:id/items/:item`, async (req, res) => {
    res.json(await uc.admin.setPriceListEntry(pathParam(req, 'id'), pathParam(req, 'item'), null));
  });

  router.get(`${base}/assignments`, async (req, res) => {
    res.json(list(requestPath(req), await uc.admin.listAssignments()));
  });
  router.put(`${base}/assignments/:cust_id`, async (req, res) => {
    const { price_list_id } = parseBody(AssignmentInput, req.body);
    res.json(await uc.admin.assign(pathParam(req, 'cust_id'), price_list_id));
  });
  router.delete(`${base}/assignments/:cust_id`, async (req, res) => {
    res.json(await uc.admin.assign(pathParam(req, 'cust_id'), null));
  });

  return router;
}
