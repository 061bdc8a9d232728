// /v1/users: shoppers of the token's account tree.
import { Router } from 'express';
import { CreateUserRequest, USER_ROLES, USER_STATUSES, UpdateUserRequest } from '@ordering/contracts';
import {
  ADMIN_SCOPE,
  assertEmptyBody,
  hasScope,
  identityOf,
  listEnvelope,
  optionalEnumQuery,
  optionalQuery,
  pageOf,
  parseBody,
  parseListParams,
  pathParam,
  requestPath,
  requireScope,
} from '@ordering/http';
import type { IdempotencyStore } from '@ordering/idempotency';
import { userResource } from '../../domain/shopper';
import type { UseCases } from '../../domain/use-cases';
import { respondIdempotently } from '@ordering/idempotency';

export function userRoutes(uc: UseCases, idempotency: IdempotencyStore): Router {
  const router = Router();
  const canRead = requireScope('users:read');
  const canWrite = requireScope('users:write');
  const actorOf = (req: Parameters<typeof identityOf>[0]) => {
    const identity = identityOf(req);
    return { reachRoot: identity.cust_id, managesAdmins: hasScope(identity, ADMIN_SCOPE) };
  };

  router.get('/v1/users', canRead, async (req, res) => {
    const params = parseListParams(req.query, { cursor: { login: 'text' } });
    const custId = optionalQuery(req.query, 'cust_id');
    const status = optionalEnumQuery(req.query, 'status', USER_STATUSES);
    const role = optionalEnumQuery(req.query, 'role', USER_ROLES);
    const after = params.startingAfter?.login;
    const rows = await uc.shoppers.list(actorOf(req), {
      ...(custId === undefined ? {} : { custId }),
      ...(status === undefined ? {} : { status }),
      ...(role === undefined ? {} : { role }),
      ...(after === undefined ? {} : { afterLogin: after }),
      limit: params.limit + 1,
    });
    const page = pageOf(rows, params.limit, (u) => ({ login: u.login }));
    res.json(listEnvelope(requestPath(req), page.data.map(userResource), page.hasMore, page.nextCursor));
  });

  router.get('/v1/users/:login', canRead, async (req, res) => {
    res.json(userResource(await uc.shoppers.get(actorOf(req), pathParam(req, 'login'))));
  });

  router.post('/v1/users', canWrite, async (req, res) => {
    await respondIdempotently(idempotency, req, res, async (complete) => {
      const input = parseBody(CreateUserRequest, req.body);
      const user = await uc.shoppers.create(actorOf(req), input, {
        beforeCommit: async (tx, created) => complete?.(tx.trx, { status: 201, body: userResource(created) }),
      });
      return { status: 201, body: userResource(user) };
    });
  });

  router.patch('/v1/users/:login', canWrite, async (req, res) => {
    const changes = parseBody(UpdateUserRequest, req.body);
    res.json(userResource(await uc.shoppers.update(actorOf(req), pathParam(req, 'login'), changes)));
  });

  router.post('/v1/users/:login/deactivate', canWrite, async (req, res) => {
    assertEmptyBody(req);
    res.json(userResource(await uc.shoppers.deactivate(actorOf(req), pathParam(req, 'login'))));
  });

  return router;
}
