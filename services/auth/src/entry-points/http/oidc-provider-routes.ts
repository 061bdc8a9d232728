// Hands the OAuth host's paths to oidc-provider: everything under /oauth/* not answered by this
// service's own routes, and discovery: OpenID's, and the same document at RFC 8414's path for OAuth
// 2.0 clients that look there. The provider is looked up per request because a signing key rotation
// replaces it.
import type { Express, NextFunction, Request, Response } from 'express';
import type Provider from 'oidc-provider';
import { setTelemetryRoute } from '@ordering/http';

export interface OidcProviderRoutesDeps {
  provider: () => Provider;
  issuer: string;
}

const CLIENT_AUTHENTICATED = new Set(['/oauth/token', '/oauth/introspect', '/oauth/revoke']);

/** The provider's fixed endpoints, named as routes in spans and metrics (anything else: one label). */
const PROVIDER_ROUTES = new Set([
  ...CLIENT_AUTHENTICATED,
  '/oauth/auth',
  '/oauth/jwks.json',
  '/oauth/userinfo',
  '/oauth/session/end',
  '/.well-known/openid-configuration',
  '/.well-known/oauth-authorization-server',
]);

const OPENID_DISCOVERY = '/.well-known/openid-configuration';
/**
 * RFC 8414 authorization server metadata, where a plain OAuth 2.0 client (openid-client with
 * `algorithm: 'oauth2'`, oauth4webapi, ...) looks for it: the provider serves OpenID discovery only,
 * and that document is a superset of RFC 8414's (same issuer, endpoints and capabilities).
 */
const OAUTH_METADATA = '/.well-known/oauth-authorization-server';

/**
 * The methods each provider endpoint answers (HEAD with GET). The authorization endpoint is GET, as
 * in the spec (the provider's `enableHttpPostMethods` is off).
 */
const METHODS: Record<string, readonly string[]> = {
  '/oauth/token': ['POST'],
  '/oauth/introspect': ['POST'],
  '/oauth/revoke': ['POST'],
  '/oauth/authorize': ['GET', 'HEAD'],
  '/oauth/userinfo': ['GET', 'HEAD', 'POST'],
  '/oauth/jwks.json': ['GET', 'HEAD'],
  '/.well-known/openid-configuration': ['GET', 'HEAD'],
  '/.well-known/oauth-authorization-server': ['GET', 'HEAD'],
};

export function mountOidcProvider(app: Express, deps: OidcProviderRoutesDeps): void {
  let current: Provider | undefined;
  let callback: ReturnType<Provider['callback']> | undefined;

  app.use((req: Request, res: Response, next: NextFunction) => {
    const path = req.path;
    if (!path.startsWith('/oauth/') && path !== OPENID_DISCOVERY && path !== OAUTH_METADATA) {
      next();
      return;
    }
    setTelemetryRoute(req, PROVIDER_ROUTES.has(path) ? path : '/oauth/*');
    const provider = deps.provider();
    if (provider !== current || !callback) {
      current = provider;
      callback = provider.callback();
    }
    const allowed = METHODS[path];
    if (allowed && req.method !== 'OPTIONS' && !allowed.includes(req.method)) {
      // The provider routes its endpoints for these methods only and answers any other with a
      // bare text 404, as if the endpoint did not exist (OPTIONS stays its CORS preflight). An
      // OAuth client reads JSON errors: 405 with Allow, in the RFC 6749 5.2 shape.
      res
        .status(405)
        .set({ Allow: allowed.join(', '), 'Cache-Control': 'no-store' })
        .json({ error: 'invalid_request', error_description: `${path} accepts ${allowed.join(', ')} only` });
      return;
    }
    if (CLIENT_AUTHENTICATED.has(path)) {
      // RFC 6749 5.2: invalid_client is 401 with a Basic challenge, whichever way the client
      // authenticated (the provider adds it only when the Authorization header was used).
      const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => Response;
      res.writeHead = ((status: number, ...rest: unknown[]) => {
        if (status === 401 && !res.getHeader('www-authenticate')) {
          res.setHeader('WWW-Authenticate', `Basic realm="${deps.issuer}"`);
        }
        // RFC 6749 5.1: a response with tokens carries Pragma: no-cache beside Cache-Control:
        // no-store (the provider sets the latter only), for HTTP/1.0 caches on the way.
        if (path === '/oauth/token') res.setHeader('Pragma', 'no-cache');
        return writeHead(status, ...rest);
      }) as Response['writeHead'];
    }
    if (path === OAUTH_METADATA) req.url = OPENID_DISCOVERY + req.url.slice(OAUTH_METADATA.length);
    void callback(req, res);
  });
}
