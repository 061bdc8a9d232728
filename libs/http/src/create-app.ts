// The Express app every service and the gateway start from: request id, the request's span and
// metrics (traceresponse header), access log, the refusal of
// unsafe text in the query string, JSON body (unsafe text and too deep nesting refused), health
// routes, the caller's routes, a 404 for unknown paths and the one error middleware.
import express from 'express';
import { NotFoundError } from '@ordering/errors';
import './express-types';
import { accessLog, provideRequestLogger } from './access-log';
import { errorMiddleware } from './error-middleware';
import { DEFAULT_READINESS_TIMEOUT_MS, type ReadinessCheck, mountHealthRoutes } from './health-routes';
import type { Logger } from './logger';
import { jsonBody } from './json-body';
import { assertDecodableQuery, assertSafeQuery } from './request-input';
import { mountMetricsRoute } from './metrics-route';
import { requestId } from './request-id';
import { requestTelemetry } from './request-telemetry';

export interface CreateAppOptions {
  service: string;
  logger: Logger;
  readiness?: ReadinessCheck[];
  /** Per-check timeout of `/readyz`, default 2000 ms. */
  readinessTimeoutMs?: number;
  /**
   * Largest JSON body accepted, in the `bytes` notation ('1mb', '100kb'); default '1mb'.
   * `false`: bodies are not parsed at all (the gateway streams them through unread).
   */
  bodyLimit?: string | false;
  /**
   * What a POST, PUT or PATCH with a body in another media type than JSON meets: `refuse`
   * (default) 415 unsupported_media_type; `pass` unparsed, for an app that reads forms itself.
   */
  otherMediaTypes?: 'refuse' | 'pass';
  /**
   * Refuse unsafe text (NUL, lone surrogates) anywhere in the query string before the routes run
   * (422 invalid_value naming the parameter); default true. The gateway checks it itself, after it
   * has authenticated the request, so that the answer carries the rate-limit headers.
   */
  checkQuery?: boolean;
  /**
   * Continue the caller's trace (`traceparent`), default true: services are reached only through
   * the gateway or each other. The gateway, facing the internet, starts a new trace per request.
   */
  trustIncomingTraceContext?: boolean;
  routes: (app: express.Express) => void;
}

export function createApp(options: CreateAppOptions): express.Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  app.use(requestId());
  app.use(requestTelemetry({ trustIncomingContext: options.trustIncomingTraceContext ?? true }));
  provideRequestLogger(app, options.logger);
  app.use(accessLog(options.logger));
  // Before any route reads it: a NUL or a lone surrogate in the query is 422 naming the parameter.
  if (options.checkQuery !== false) {
    app.use((req, _res, next) => {
      const queryAt = req.url.indexOf('?');
      if (queryAt !== -1) {
        assertDecodableQuery(req.url.slice(queryAt + 1));
        assertSafeQuery(req.query);
      }
      next();
    });
  }
  if (options.bodyLimit !== false) {
    app.use(
      jsonBody({ limit: options.bodyLimit ?? '1mb', otherMediaTypes: options.otherMediaTypes ?? 'refuse' }),
    );
  }

  mountHealthRoutes(app, options.readiness ?? [], options.readinessTimeoutMs ?? DEFAULT_READINESS_TIMEOUT_MS);
  mountMetricsRoute(app);
  options.routes(app);

  app.use((req, _res, next) => {
    next(new NotFoundError(`Unrecognized request URL (${req.method} ${req.path})`));
  });
  app.use(errorMiddleware({ logger: options.logger }));
  return app;
}
