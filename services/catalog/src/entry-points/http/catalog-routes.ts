// GET /v1/catalog/items and /v1/catalog/items/{id}: the catalog as one account of the token's reach
// sees it (`catalog:read`).
import { Router, type Request } from 'express';
import { MissingFieldError, InputError } from '@ordering/errors';
import {
  encodeCursor,
  identityOf,
  listEnvelope,
  optionalEnumQuery,
  optionalQuery,
  parseListParams,
  pathParam,
  requestPath,
  requireScope,
  type Cursor,
} from '@ordering/http';
import type { ListCursor } from '../../data-access/catalog-view-repository';
import type { CatalogQueries } from '../../domain/catalog-queries-use-case';

export function catalogRoutes(queries: CatalogQueries): Router {
  const router = Router();
  const canRead = requireScope('catalog:read');

  router.get('/v1/catalog/items', canRead, async (req, res) => {
    const params = parseListParams(req.query);
    const custId = optionalQuery(req.query, 'cust_id');
    if (custId === undefined) throw new MissingFieldError('cust_id');
    const categoryId = optionalQuery(req.query, 'category_id');
    const q = optionalQuery(req.query, 'q');
    const available = optionalEnumQuery(req.query, 'available', ['true', 'false'] as const);
    const page = await queries.list(identityOf(req).cust_id, {
      custId,
      limit: params.limit,
      ...(categoryId === undefined ? {} : { categoryId }),
      ...(q === undefined ? {} : { q }),
      ...(available === undefined ? {} : { available: available === 'true' }),
      ...(params.startingAfter ? { after: listCursor(params.startingAfter) } : {}),
    });
    const next = page.hasMore && page.last ? encodeCursor(wireCursor(page.last)) : null;
    res.json(listEnvelope(requestPath(req), page.items, page.hasMore, next));
  });

  router.get('/v1/catalog/items/:id', canRead, async (req: Request, res) => {
    const identity = identityOf(req);
    // Without cust_id, the item as the token's own account sees it.
    const custId = optionalQuery(req.query, 'cust_id') ?? identity.cust_id;
    res.json(await queries.get(identity.cust_id, custId, pathParam(req, 'id')));
  });

  return router;
}

/** Browse cursors hold the last item code; search cursors also its tier. */
function wireCursor(cursor: ListCursor): Cursor {
  return cursor.kind === 'browse' ? { c: cursor.itemCode } : { t: cursor.tier, c: cursor.itemCode };
}

function listCursor(cursor: Cursor): ListCursor {
  const { t, c } = cursor;
  if (typeof c === 'string' && t === undefined) return { kind: 'browse', itemCode: c };
  if (typeof c === 'string' && typeof t === 'number' && Number.isInteger(t) && t >= 0 && t <= 3) {
    return { kind: 'search', tier: t, itemCode: c };
  }
  throw new InputError(
    'starting_after is not a cursor this API returned (use next_cursor)',
    'starting_after',
  );
}
