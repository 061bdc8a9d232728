// Operator endpoints (`/internal/v1/admin/...`, never routed by the gateway; the CLI calls them):
// accounts, addresses, bulk import, and shoppers of any account with their passwords.
import { Router } from 'express';
import { CreateUserRequest, UpdateUserRequest, requestObject } from '@ordering/contracts';
import {
  listEnvelope,
  optionalQuery,
  pageOf,
  parseBody,
  parseListParams,
  pathParam,
  requestPath,
} from '@ordering/http';
import { z } from 'zod';
import {
  AddressChanges,
  AddressInput,
  CreateAccountInput,
  UpdateAccountInput,
} from '../../domain/account-inputs';
import { addressResource } from '../../domain/account';
import { userResource } from '../../domain/shopper';
import { OPERATOR } from '../../domain/shopper-use-case';
import type { UseCases } from '../../domain/use-cases';

const ImportRequest = requestObject({ format: z.enum(['json', 'csv']), content: z.string().min(1) });
const AdminCreateUser = CreateUserRequest.extend({
  cust_id: z.string().min(1),
  password: z.string().max(1024).optional(),
});
const PasswordRequest = requestObject({ password: z.string().max(1024) });

export function adminRoutes(uc: UseCases): Router {
  const router = Router();
  const base = '/internal/v1/admin';

  router.get(`${base}/customers`, async (req, res) => {
    const params = parseListParams(req.query, { cursor: { cust_id: 'text' } });
    const parentCustId = optionalQuery(req.query, 'parent_cust_id');
    const after = params.startingAfter?.cust_id;
    const rows = await uc.accounts.listAccounts({
      ...(parentCustId === undefined ? {} : { parentCustId }),
      ...(after === undefined ? {} : { afterCustId: after }),
      limit: params.limit + 1,
    });
    const page = pageOf(rows, params.limit, (c) => ({ cust_id: c.id }));
    res.json(listEnvelope(requestPath(req), page.data, page.hasMore, page.nextCursor));
  });

  router.post(`${base}/customers`, async (req, res) => {
    res.status(201).json(await uc.accounts.createAccount(parseBody(CreateAccountInput, req.body)));
  });

  router.post(`${base}/customers/import`, async (req, res) => {
    const { format, content } = parseBody(ImportRequest, req.body);
    res.json(await uc.bulkImport.importAccounts(format, content));
  });

  router.get(`${base}/customers/:cust_id`, async (req, res) => {
    res.json(await uc.accounts.adminView(pathParam(req, 'cust_id')));
  });

  router.patch(`${base}/customers/:cust_id`, async (req, res) => {
    res.json(
      await uc.accounts.updateAccount(pathParam(req, 'cust_id'), parseBody(UpdateAccountInput, req.body)),
    );
  });

  router.post(`${base}/customers/:cust_id/addresses`, async (req, res) => {
    const address = await uc.accounts.addAddress(
      pathParam(req, 'cust_id'),
      parseBody(AddressInput, req.body),
    );
    res.status(201).json(addressResource(address));
  });

  router.patch(`${base}/customers/:cust_id/addresses/:id`, async (req, res) => {
    const changes = parseBody(AddressChanges, req.body);
    res.json(
      addressResource(
        await uc.accounts.updateAddress(pathParam(req, 'cust_id'), pathParam(req, 'id'), changes),
      ),
    );
  });

  router.post(`${base}/users`, async (req, res) => {
    const { password, ...input } = parseBody(AdminCreateUser, req.body);
    res.status(201).json(userResource(await uc.operatorProvisioning.createShopper(input, password)));
  });

  router.patch(`${base}/users/:login`, async (req, res) => {
    const changes = parseBody(UpdateUserRequest, req.body);
    res.json(userResource(await uc.shoppers.update(OPERATOR, pathParam(req, 'login'), changes)));
  });

  router.post(`${base}/users/:login/deactivate`, async (req, res) => {
    res.json(userResource(await uc.shoppers.deactivate(OPERATOR, pathParam(req, 'login'))));
  });

  router.post(`${base}/users/:login/reactivate`, async (req, res) => {
    res.json(userResource(await uc.shoppers.reactivate(OPERATOR, pathParam(req, 'login'))));
  });

  router.put(`${base}/users/:login/password`, async (req, res) => {
    await uc.credentials.setPassword(pathParam(req, 'login'), parseBody(PasswordRequest, req.body).password);
    res.status(204).end();
  });

  router.post(`${base}/users/:login/password_link`, async (req, res) => {
    res.status(201).json(await uc.credentials.createPasswordLink(pathParam(req, 'login')));
  });

  return router;
}
