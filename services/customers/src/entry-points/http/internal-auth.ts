// Internal routes (`/internal/v1/...`) serve other services and operators: the caller's identity
// header must carry the `internal` scope itself (a customer's `admin:all` does not imply it).
import type { RequestHandler } from 'express';
import { NotAllowedError } from '@ordering/errors';
import { identityOf } from '@ordering/http';

export const INTERNAL_SCOPE = 'internal';

export function requireInternalCaller(): RequestHandler {
  return (req, _res, next) => {
    try {
      if (!identityOf(req).scopes.includes(INTERNAL_SCOPE)) {
        throw new NotAllowedError('This endpoint serves internal callers only', 'insufficient_scope');
      }
      next();
    } catch (err) {
      next(err);
    }
  };
}
