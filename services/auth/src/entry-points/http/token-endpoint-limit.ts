// The token endpoint's limit, in front of oidc-provider: a token request over its bucket is answered
// 429 here and never reaches the provider (no token signed, nothing written). See README, "Token
// endpoint limits". Mounted after the OAuth input guard, which has parsed the form.
import type { Express, NextFunction, Request, Response } from 'express';
import { setTelemetryRoute, type Logger } from '@ordering/http';
import { platformMetrics } from '@ordering/telemetry';
import {
  admitTokenRequest,
  type TokenBucketKind,
  type TokenRequestLimitDeps,
} from '../../domain/token-request-limit-use-case';
import { formField } from './oauth-input-guard';

/**
 * RFC 6749 registers no error code for "too many requests"; Auth0's token endpoint answers this one,
 * and it names the HTTP status an OAuth client already shows (README, "Token endpoint limits").
 */
export const TOKEN_RATE_LIMIT_ERROR = 'too_many_requests';

const DESCRIPTIONS: Record<TokenBucketKind, string> = {
  client: 'too many token requests for this client: reuse an access token until it expires',
  user: 'too many token requests for this client and user: reuse an access token until it expires',
  failed_authentication: 'too many failed client authentications for this client_id',
};

export function mountTokenEndpointLimit(
  app: Express,
  deps: TokenRequestLimitDeps & { logger: Logger },
): void {
  app.post('/oauth/token', (req: Request, res: Response, next: NextFunction) => {
    setTelemetryRoute(req, '/oauth/token');
    admitTokenRequest(deps, {
      grantType: formField(req, 'grant_type'),
      code: formField(req, 'code'),
      refreshToken: formField(req, 'refresh_token'),
      authorization: req.headers.authorization,
      clientId: formField(req, 'client_id'),
      clientSecret: formField(req, 'client_secret'),
    }).then(
      (admission) => {
        if (admission.allowed) {
          next();
          return;
        }
        const retryAfter = Math.max(1, Math.ceil(admission.retryAfterSeconds));
        platformMetrics().tokenRateLimitRefusals.add(1, { bucket: admission.bucket });
        // On the request's logger (its request id), for the operator looking for the client.
        ((req as { log?: Logger }).log ?? deps.logger).info(
          { client_id: admission.clientId.slice(0, 200), bucket: admission.bucket, retry_after: retryAfter },
          'token request refused by the token endpoint limit',
        );
        platformMetrics().tokenErrors.add(1, { error: TOKEN_RATE_LIMIT_ERROR, endpoint: 'token' });
        res
          .status(429)
          .set({ 'Retry-After': String(retryAfter), 'Cache-Control': 'no-store', Pragma: 'no-cache' })
          .json({
            error: TOKEN_RATE_LIMIT_ERROR,
            error_description: `${DESCRIPTIONS[admission.bucket]}; retry in ${retryAfter} seconds`,
          });
      },
      (err: unknown) => {
        // The limit could not be looked up (the database or Redis failing in a way the fallback does
        // not cover): the provider answers the request as it would without a limit (its own 503
        // when the database is away), rather than this middleware inventing another error.
        deps.logger.warn({ err }, 'token endpoint limit not checked');
        next();
      },
    );
  });
}
