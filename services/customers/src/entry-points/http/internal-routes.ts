// The internal API other services call (never routed by the gateway): credentials and JIT for the
// auth service; users, accounts and reach for everyone.
import { optionalEnumQuery, parseBody, pathParam } from '@ordering/http';
import { USER_ROLES, USER_STATUSES, requestObject } from '@ordering/contracts';
import { Router } from 'express';
import { z } from 'zod';
import { userResource } from '../../domain/shopper';
import type { UseCases } from '../../domain/use-cases';

const VerifyRequest = requestObject({
  login: z.string().min(1).max(320),
  password: z.string().min(1).max(1024),
  /** The auth service's counting address of the person signing in (an IPv4 address, an IPv6 /64). */
  client_address: z.string().min(1).max(64).optional(),
});
const JitRequest = requestObject({ email: z.email(), name: z.string().max(200).optional() });
const PasswordWithTokenRequest = requestObject({
  token: z.string().min(1).max(200),
  password: z.string().max(1024),
});

export function internalRoutes(uc: UseCases): Router {
  const router = Router();

  router.post('/internal/v1/credentials/verify', async (req, res) => {
    const { login, password, client_address } = parseBody(VerifyRequest, req.body);
    res.json({ user: userResource(await uc.credentials.verify(login, password, client_address)) });
  });

  /** The set-password page of a one-time link posts here. */
  router.post('/internal/v1/credentials/password', async (req, res) => {
    const { token, password } = parseBody(PasswordWithTokenRequest, req.body);
    res.json({ user: userResource(await uc.credentials.setPasswordWithToken(token, password)) });
  });

  router.get('/internal/v1/users/:login', async (req, res) => {
    res.json(userResource(await uc.shoppers.get({ reachRoot: null }, pathParam(req, 'login'))));
  });

  router.post('/internal/v1/users/jit', async (req, res) => {
    const { email, name } = parseBody(JitRequest, req.body);
    const { user, created } = await uc.jit.provision(email, name);
    res.status(created ? 201 : 200).json({ user: userResource(user), created });
  });

  router.get('/internal/v1/customers/:cust_id', async (req, res) => {
    res.json(await uc.accountQueries.getForService(pathParam(req, 'cust_id')));
  });

  router.get('/internal/v1/customers/:cust_id/lineage', async (req, res) => {
    res.json(await uc.accountQueries.lineageOf(pathParam(req, 'cust_id')));
  });

  router.get('/internal/v1/customers/:cust_id/reach', async (req, res) => {
    res.json({
      cust_id: pathParam(req, 'cust_id'),
      cust_ids: await uc.accountQueries.reachOf(pathParam(req, 'cust_id')),
    });
  });

  /** The users of one account (not its descendants), e.g. its active admins (approvals reassignment). */
  router.get('/internal/v1/customers/:cust_id/users', async (req, res) => {
    const custId = pathParam(req, 'cust_id');
    const role = optionalEnumQuery(req.query, 'role', USER_ROLES);
    const status = optionalEnumQuery(req.query, 'status', USER_STATUSES);
    const users = await uc.shoppers.list(
      { reachRoot: custId },
      { custId, ...(role ? { role } : {}), ...(status ? { status } : {}), limit: 100 },
    );
    res.json({ object: 'list', data: users.filter((u) => u.cust_id === custId).map(userResource) });
  });

  return router;
}
