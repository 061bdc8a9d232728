// /scim/v2: the provisioning feed of identity providers (RFC 7644), authenticated like the API
// (the gateway verifies the bearer token) with `users:write`; errors in the SCIM error format.
import { type ErrorRequestHandler, type Request, type Response, Router } from 'express';
import {
  ADMIN_SCOPE,
  hasScope,
  identityOf,
  jsonBody,
  pathParam,
  requireIdentity,
  requireScope,
  toHttpAppError,
} from '@ordering/http';
import { SCIM_ERROR_SCHEMA, ScimError, type ScimMetaContext } from '../../domain/scim-user-mapping';
import type { UseCases } from '../../domain/use-cases';
import { resourceTypes, schemas, serviceProviderConfig } from './scim-discovery';

const SCIM_CONTENT_TYPE = 'application/scim+json';

function contextOf(req: Request, configuredBase?: string): ScimMetaContext {
  if (configuredBase) return { baseUrl: configuredBase.replace(/\/$/, '') };
  const proto = req.get('x-forwarded-proto')?.split(',')[0]?.trim() || req.protocol;
  const host = req.get('x-forwarded-host')?.split(',')[0]?.trim() || req.get('host');
  return { baseUrl: `${proto}://${host}/scim/v2` };
}

/**
 * RFC 7644 section 3.12 error body; `scimType` where the RFC defines one. Mounted on the app at
 * `/scim/v2` (after the routes) so that it also renders errors of the app-wide body parser.
 */
export const scimErrors: ErrorRequestHandler = (err, req, res, next) => {
  const appError = toHttpAppError(err);
  if (res.headersSent) {
    next(err);
    return;
  }
  // A server fault is logged and not described; a ScimError's status (501 included) is deliberate.
  const fault = appError.status >= 500 && !(appError instanceof ScimError);
  if (fault)
    (req as { log?: { error(o: unknown, m: string): void } }).log?.error({ err }, 'SCIM request failed');
  let status = appError.status;
  let scimType: string | undefined;
  if (appError instanceof ScimError) scimType = appError.scimType;
  else if (appError.code === 'login_taken') scimType = 'uniqueness';
  else if (status === 422 || status === 400) {
    status = 400;
    scimType = appError.code === 'invalid_json' ? 'invalidSyntax' : 'invalidValue';
  }
  for (const [name, value] of Object.entries(appError.headers)) res.setHeader(name, value);
  res
    .status(status)
    .type(SCIM_CONTENT_TYPE)
    .send(
      JSON.stringify({
        schemas: [SCIM_ERROR_SCHEMA],
        status: String(status),
        ...(scimType ? { scimType } : {}),
        detail: fault ? 'An internal error occurred; it has been logged' : appError.message,
      }),
    );
};

export function scimRoutes(uc: UseCases, options: { identitySecret: string; baseUrl?: string }): Router {
  const router = Router();
  const send = (res: Response, status: number, body: unknown) =>
    res.status(status).type(SCIM_CONTENT_TYPE).send(JSON.stringify(body));
  const callerOf = (req: Request) => {
    const identity = identityOf(req);
    return { custId: identity.cust_id, managesAdmins: hasScope(identity, ADMIN_SCOPE) };
  };

  // The shared JSON parser: unsafe text (NUL, lone surrogates) and deep nesting are refused
  // (400 invalidValue through scimErrors) before any attribute is read.
  router.use('/scim/v2', ...jsonBody({ type: [SCIM_CONTENT_TYPE, 'application/json'], limit: '1mb' }));
  router.use('/scim/v2', requireIdentity(options.identitySecret), requireScope('users:write'));

  router.get('/scim/v2/ServiceProviderConfig', (req, res) => {
    send(res, 200, serviceProviderConfig(contextOf(req, options.baseUrl)));
  });
  router.get('/scim/v2/ResourceTypes', (req, res) => {
    const types = resourceTypes(contextOf(req, options.baseUrl));
    send(res, 200, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
      totalResults: types.length,
      startIndex: 1,
      itemsPerPage: types.length,
      Resources: types,
    });
  });
  router.get('/scim/v2/ResourceTypes/:id', (req, res) => {
    const type = resourceTypes(contextOf(req, options.baseUrl)).find((t) => t.id === pathParam(req, 'id'));
    if (!type) throw new ScimError(404, undefined, `Resource type ${pathParam(req, 'id')} not found`);
    send(res, 200, type);
  });
  router.get('/scim/v2/Schemas', (req, res) => {
    const list = schemas(contextOf(req, options.baseUrl));
    send(res, 200, {
      schemas: ['urn:ietf:params:scim:api:messages:2.0:ListResponse'],
      totalResults: list.length,
      startIndex: 1,
      itemsPerPage: list.length,
      Resources: list,
    });
  });
  router.get('/scim/v2/Schemas/:id', (req, res) => {
    const schema = schemas(contextOf(req, options.baseUrl)).find((s) => s.id === pathParam(req, 'id'));
    if (!schema) throw new ScimError(404, undefined, `Schema ${pathParam(req, 'id')} not found`);
    send(res, 200, schema);
  });

  router.post('/scim/v2/Users', async (req, res) => {
    const user = await uc.scim.create(callerOf(req), req.body, contextOf(req, options.baseUrl));
    res.setHeader('Location', user.meta.location);
    res.setHeader('ETag', user.meta.version);
    send(res, 201, user);
  });
  router.get('/scim/v2/Users', async (req, res) => {
    const q = req.query as Record<string, unknown>;
    const str = (v: unknown) => (typeof v === 'string' ? v : undefined);
    send(
      res,
      200,
      await uc.scim.list(
        callerOf(req),
        {
          ...(str(q.filter) === undefined ? {} : { filter: str(q.filter) }),
          ...(str(q.startIndex) === undefined ? {} : { startIndex: str(q.startIndex) }),
          ...(str(q.count) === undefined ? {} : { count: str(q.count) }),
        },
        contextOf(req, options.baseUrl),
      ),
    );
  });
  router.get('/scim/v2/Users/:id', async (req, res) => {
    const user = await uc.scim.get(callerOf(req), pathParam(req, 'id'), contextOf(req, options.baseUrl));
    res.setHeader('ETag', user.meta.version);
    send(res, 200, user);
  });
  router.put('/scim/v2/Users/:id', async (req, res) => {
    const user = await uc.scim.replace(
      callerOf(req),
      pathParam(req, 'id'),
      req.body,
      contextOf(req, options.baseUrl),
      req.get('if-match'),
    );
    res.setHeader('ETag', user.meta.version);
    send(res, 200, user);
  });
  router.patch('/scim/v2/Users/:id', async (req, res) => {
    const user = await uc.scim.patch(
      callerOf(req),
      pathParam(req, 'id'),
      req.body,
      contextOf(req, options.baseUrl),
      req.get('if-match'),
    );
    res.setHeader('ETag', user.meta.version);
    send(res, 200, user);
  });
  router.delete('/scim/v2/Users/:id', async (req, res) => {
    await uc.scim.delete(callerOf(req), pathParam(req, 'id'), req.get('if-match'));
    res.status(204).end();
  });
  // RFC 7644 answers an operation the service provider does not support with 501: bulk (3.7, and
  // ServiceProviderConfig says bulk unsupported), /Me (3.11) and searching by POST (3.4.3).
  const notImplemented = (what: string) => () => {
    throw new ScimError(501, undefined, `${what} is not supported by this service provider`);
  };
  router.all('/scim/v2/Bulk', notImplemented('Bulk'));
  router.all(['/scim/v2/Me', '/scim/v2/Me/*rest'], notImplemented('/Me'));
  router.post(['/scim/v2/.search', '/scim/v2/Users/.search'], notImplemented('Searching with POST .search'));
  router.use('/scim/v2', (req, _res, next) => {
    next(new ScimError(404, undefined, `No SCIM endpoint ${req.method} ${req.path}`));
  });
  return router;
}
