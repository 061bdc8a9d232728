// /v1/approvals (queues, approve, reject, preview) and /v1/customers/{cust_id}/approval_chain.
import type { Request } from 'express';
import { Router } from 'express';
import {
  APPROVAL_STATUSES,
  ApproveRequest,
  CreateOrderRequest,
  PutApprovalChainRequest,
  RejectRequest,
} from '@ordering/contracts';
import { MissingFieldError } from '@ordering/errors';
import {
  identityOf,
  listEnvelope,
  optionalBody,
  optionalEnumQuery,
  optionalQuery,
  pageOf,
  parseBody,
  parseListParams,
  pathParam,
  requestPath,
  requireScope,
} from '@ordering/http';
import { approvalResource } from '../../domain/approval';
import type { Actor } from '../../domain/ports';
import type { UseCases } from '../../domain/use-cases';

const actorOf = (req: Request): Actor => {
  const identity = identityOf(req);
  return { custId: identity.cust_id, login: identity.login, scopes: identity.scopes };
};

export function approvalRoutes(uc: UseCases): Router {
  const router = Router();
  const admin = requireScope('admin:all');
  const canRead = requireScope('orders:read');
  const canWrite = requireScope('orders:write');

  router.get('/v1/customers/:cust_id/approval_chain', admin, async (req, res) => {
    res.json(await uc.chains.get(actorOf(req), pathParam(req, 'cust_id')));
  });

  router.put('/v1/customers/:cust_id/approval_chain', admin, async (req, res) => {
    const { steps } = parseBody(PutApprovalChainRequest, req.body);
    res.json(
      await uc.chains.put(
        actorOf(req),
        pathParam(req, 'cust_id'),
        steps.map((s) => s.approver),
      ),
    );
  });

  router.get('/v1/approvals', canRead, async (req, res) => {
    const params = parseListParams(req.query, { cursor: { t: 'timestamp', id: 'id' } });
    const approver = optionalQuery(req.query, 'approver');
    if (approver === undefined) throw new MissingFieldError('approver');
    const status = optionalEnumQuery(req.query, 'status', APPROVAL_STATUSES);
    const after = params.startingAfter;
    const rows = await uc.flow.queue(actorOf(req), {
      approver,
      ...(status === undefined ? {} : { status }),
      ...(after ? { after: { createdAt: after.t, id: after.id } } : {}),
      limit: params.limit + 1,
    });
    const page = pageOf(rows, params.limit, (a) => ({ t: a.createdAt.toISOString(), id: a.id }));
    res.json(listEnvelope(requestPath(req), page.data.map(approvalResource), page.hasMore, page.nextCursor));
  });

  router.post('/v1/approvals/preview', canWrite, async (req, res) => {
    const draft = parseBody(CreateOrderRequest, req.body);
    res.json(await uc.preview.preview(actorOf(req), draft));
  });

  router.post('/v1/approvals/:approval_id/approve', canWrite, async (req, res) => {
    const { comment } = parseBody(ApproveRequest, optionalBody(req));
    res.json(await uc.flow.approve(actorOf(req), pathParam(req, 'approval_id'), comment ?? null));
  });

  router.post('/v1/approvals/:approval_id/reject', canWrite, async (req, res) => {
    const { reason } = parseBody(RejectRequest, optionalBody(req));
    res.json(await uc.flow.reject(actorOf(req), pathParam(req, 'approval_id'), reason));
  });

  return router;
}
