// Introspection, revocation and userinfo for our JWT access tokens, which oidc-provider does not
// store and so cannot answer for. Anything that is not a JWT (refresh tokens) goes on to the
// provider. Errors are RFC 6749 section 5.2 bodies.
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import type { ClientRepository } from '../../data-access/client-repository';
import { authenticateClient } from '../../domain/client-authentication-use-case';
import {
  inspectAccessToken,
  looksLikeJwt,
  type AccessTokenClaims,
  type InspectionDeps,
} from '../../domain/access-token-inspection-use-case';
import { OAuthError, invalidClient } from '../../domain/oauth-error';
import { revokeAccessToken, type RevocationDeps } from '../../domain/revocation-use-case';
import { splitScopes } from '../../domain/scopes';
import { emailClaims } from '../../domain/email-claims';
import { profileClaims } from '../../domain/profile-claims';
import { findShopper } from './oidc-provider-factory';
import type { CustomersClient } from '../../data-access/customers-client';
import { formField } from './oauth-input-guard';

export interface TokenRoutesDeps {
  clients: ClientRepository;
  clientSecretKey: string;
  issuer: string;
  inspection: InspectionDeps;
  revocation: RevocationDeps;
  customers: CustomersClient;
}

function sendOAuthError(res: Response, err: OAuthError): void {
  res
    .status(err.status)
    .set({ ...err.headers, 'Cache-Control': 'no-store' })
    .json({
      error: err.error,
      error_description: err.description,
    });
}

/** Runs `handler`; OAuthErrors become RFC 6749 bodies, anything else goes to the error middleware. */
function oauthRoute(handler: (req: Request, res: Response, next: NextFunction) => Promise<void>) {
  return (req: Request, res: Response, next: NextFunction) => {
    handler(req, res, next).catch((err: unknown) => {
      if (err instanceof OAuthError) sendOAuthError(res, err);
      else next(err);
    });
  };
}

function clientOf(deps: TokenRoutesDeps, req: Request) {
  return authenticateClient(
    { clients: deps.clients, secretKey: deps.clientSecretKey, issuer: deps.issuer },
    {
      authorization: req.headers.authorization,
      clientId: formField(req, 'client_id'),
      clientSecret: formField(req, 'client_secret'),
    },
  );
}

/** Introspection may see a token when it was issued to the caller or to a client of the same account. */
function mayIntrospect(caller: { clientId: string; custId: string }, claims: AccessTokenClaims): boolean {
  return claims.client_id === caller.clientId || claims.cust_id.toLowerCase() === caller.custId.toLowerCase();
}

export function mountTokenRoutes(app: Express, deps: TokenRoutesDeps): void {
  const form = express.urlencoded({ extended: false, limit: '56kb' });

  app.post(
    '/oauth/introspect',
    form,
    oauthRoute(async (req, res, next) => {
      const token = formField(req, 'token');
      if (!token || !looksLikeJwt(token)) {
        next();
        return;
      }
      const caller = await clientOf(deps, req);
      if (caller.type === 'native')
        throw invalidClient(deps.issuer, 'public clients may not introspect tokens');
      const claims = await inspectAccessToken(deps.inspection, token);
      res.set('Cache-Control', 'no-store');
      if (!claims || !mayIntrospect(caller, claims)) {
        res.json({ active: false });
        return;
      }
      res.json({
        active: true,
        token_type: 'Bearer',
        scope: claims.scope,
        client_id: claims.client_id,
        username: claims.login,
        sub: claims.sub,
        aud: claims.aud,
        iss: claims.iss,
        exp: claims.exp,
        iat: claims.iat,
        jti: claims.jti,
        cust_id: claims.cust_id,
        login: claims.login,
      });
    }),
  );

  app.post(
    '/oauth/revoke',
    form,
    oauthRoute(async (req, res, next) => {
      const token = formField(req, 'token');
      if (!token || !looksLikeJwt(token)) {
        next();
        return;
      }
      const caller = await clientOf(deps, req);
      const claims = await inspectAccessToken(deps.inspection, token);
      // RFC 7009: an invalid, unknown or foreign token is answered 200 all the same.
      if (claims && claims.client_id === caller.clientId) {
        await revokeAccessToken(deps.revocation, claims);
      }
      res.status(200).set('Cache-Control', 'no-store').end();
    }),
  );

  const userinfo = oauthRoute(async (req, res, next) => {
    // The scheme is case-insensitive (RFC 7235 2.1), as the gateway takes it.
    const bearer = /^bearer +(\S+) *$/i.exec(req.headers.authorization ?? '');
    const token = bearer ? bearer[1] : formField(req, 'access_token');
    if (!token || !looksLikeJwt(token)) {
      next();
      return;
    }
    const invalid = new OAuthError(401, 'invalid_token', 'invalid token provided', {
      'WWW-Authenticate': `Bearer realm="${deps.issuer}", error="invalid_token"`,
    });
    const claims = await inspectAccessToken(deps.inspection, token);
    if (!claims) throw invalid;
    const scopes = splitScopes(claims.scope);
    if (!scopes.includes('openid')) {
      throw new OAuthError(403, 'insufficient_scope', 'the access token does not carry the openid scope', {
        'WWW-Authenticate': `Bearer realm="${deps.issuer}", error="insufficient_scope", scope="openid"`,
      });
    }
    const account = await findShopper(deps.customers, claims.sub);
    if (!account) throw invalid;
    const user = account.user;
    res.set('Cache-Control', 'no-store').json({
      sub: claims.sub,
      ...(scopes.includes('profile') ? profileClaims(user) : {}),
      ...(scopes.includes('email') ? emailClaims(user.email) : {}),
    });
  });
  app.get('/oauth/userinfo', userinfo);
  app.post('/oauth/userinfo', form, userinfo);
}
