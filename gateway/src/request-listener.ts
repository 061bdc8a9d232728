// The gateway's HTTP entry: which requests it serves on its own path and which go to its Express
// app. The API's requests (a service's route, a known path asked with another method, any path
// with a bearer token) are served without Express, inside libs/http's plain request envelope
// (request id, span, metrics, access line, error body as every app has them): on this hot path
// Express's router, prototypes and middleware chain were a share of the gateway's CPU per request
// worth avoiding (README, "Benchmark"). The rest (health, metrics, the OpenAPI document, the 404 of
// an unknown path without a token) is the Express app's.
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { type Logger, plainRequestServer } from '@ordering/http';
import type { ApiRequestHandler } from './api-request-handler';
import type { RouteMatcher } from './route-matcher';

/** Paths of libs/http's app (probes, metrics): never API paths, whatever the headers. */
const APP_PATHS = new Set(['/healthz', '/readyz', '/livez', '/metrics']);

export interface GatewayListenerOptions {
  app: RequestListener;
  matcher: RouteMatcher;
  api: ApiRequestHandler;
  logger: Logger;
}

/** An absolute-form request target (`GET http://host/v1/...`, RFC 9112 3.2.2) in origin form. */
function originForm(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.pathname}${parsed.search}`;
  } catch {
    return url;
  }
}

export function gatewayRequestListener(options: GatewayListenerOptions): RequestListener {
  const serve = plainRequestServer({
    logger: options.logger,
    // The public edge: every request starts a trace of the platform's own (a client's traceparent
    // is kept as a link); the services continue the gateway's.
    trustIncomingContext: false,
  });
  return (req: IncomingMessage, res: ServerResponse) => {
    let url = req.url ?? '/';
    if (url[0] !== '/' && url !== '*') url = req.url = originForm(url);
    const queryAt = url.indexOf('?');
    const path = queryAt === -1 ? url : url.slice(0, queryAt);
    if (!APP_PATHS.has(path)) {
      const match = options.matcher.match(req.method ?? 'GET', path);
      const api =
        match.kind === 'route'
          ? match.route.service !== 'gateway'
          : match.kind === 'wrong_method' || req.headers.authorization !== undefined;
      if (api) {
        // The API's answers hold an account's data (users' e-mails, addresses, orders): no cache
        // on the way may keep them, unless the service that answered says otherwise.
        res.setHeader('Cache-Control', 'no-store');
        serve(req, res, (r, s, ctx) => options.api(r, s, ctx, match, path));
        return;
      }
    }
    options.app(req, res);
  };
}
