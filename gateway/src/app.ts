// The gateway's Express app: libs/http's app (request id, access log, health, 404, error body)
// without body parsing, since bodies stream through to the services unread.
import type express from 'express';
import { type Logger, type ReadinessCheck, createApp } from '@ordering/http';
import { type ApiRequestDeps, apiRequestHandler } from './api-request-handler';

export interface GatewayAppOptions {
  service: string;
  logger: Logger;
  readiness: ReadinessCheck[];
  trustProxy: boolean;
  api: ApiRequestDeps;
}

export function createGatewayApp(options: GatewayAppOptions): express.Express {
  return createApp({
    service: options.service,
    logger: options.logger,
    readiness: options.readiness,
    bodyLimit: false,
    // The public edge: every request starts a trace of the platform's own (a client's traceparent
    // is kept as a link); the services continue the gateway's.
    trustIncomingTraceContext: false,
    // Checked by the API handler once the token is known (the answer carries the rate-limit headers).
    checkQuery: false,
    routes: (app) => {
      app.set('trust proxy', options.trustProxy);
      app.use(apiRequestHandler(options.api));
    },
  });
}
