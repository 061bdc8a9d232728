// The gateway's Express app: libs/http's app (request id, access log, health, metrics, 404, error
// body) without body parsing, for what is not an API request (request-listener.ts): the probes,
// the metrics, the OpenAPI document and the 404 of an unknown path asked without a token. The
// last two take from the client address's rate-limit bucket, as every API answer does.
import type express from 'express';
import { type Logger, type ReadinessCheck, createApp } from '@ordering/http';

export interface GatewayAppOptions {
  service: string;
  logger: Logger;
  readiness: ReadinessCheck[];
  trustProxy: boolean;
  /** Routes the gateway answers itself, by path (GET and HEAD). */
  ownRoutes: Record<string, express.RequestHandler>;
  /** Runs before them and before the 404 of an unknown path: the rate limit of the client address. */
  rateLimit: express.RequestHandler;
}

export function createGatewayApp(options: GatewayAppOptions): express.Express {
  return createApp({
    service: options.service,
    logger: options.logger,
    readiness: options.readiness,
    bodyLimit: false,
    // The public edge: every request starts a trace of the platform's own (see request-listener.ts).
    trustIncomingTraceContext: false,
    routes: (app) => {
      app.set('trust proxy', options.trustProxy);
      // The probes and metrics were answered above; everything else here is an API answer.
      app.use(options.rateLimit);
      for (const [path, handler] of Object.entries(options.ownRoutes)) app.get(path, handler);
    },
  });
}
