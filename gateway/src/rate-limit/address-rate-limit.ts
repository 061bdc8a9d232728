// The rate limit of what the gateway's Express app answers on the API (the OpenAPI document, the
// 404 of an unknown path asked without a token): the client address's bucket, as for any request
// without a verified token (api-request-handler.ts), so that these answers carry the rate-limit
// headers too.
import type express from 'express';
import { clientAddress } from '../auth/client-address';
import type { TokenAdmission } from '../auth/token-admission';
import { enforceRateLimit } from './rate-limit-headers';

export function addressRateLimit(admission: TokenAdmission, trustProxy: boolean): express.RequestHandler {
  return (req, res, next) => {
    admission.admitAddress(clientAddress(req, trustProxy)).then((bucket) => {
      try {
        enforceRateLimit(res, admission.rateLimiter.params.refillPerSecond, bucket, 'address');
      } catch (err) {
        return next(err);
      }
      next();
    }, next);
  };
}
