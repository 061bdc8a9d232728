// The auth service's boundary for text no field holds (NUL, lone UTF-16 surrogates): a query value
// or form field of an OAuth endpoint carrying it is refused as RFC 6749 `invalid_request` before
// oidc-provider reads it (it would otherwise reach PostgreSQL inside a stored payload and answer
// 500). The authorization endpoint is opened by a browser: its refusal is a page. The sign-in pages
// (`/oauth/interaction/*`) give their own refusals. A form body that cannot be read (too large, a
// charset or content encoding other than UTF-8 identity, malformed) is `invalid_request` too, with
// the parser's status (413, 415, 400), rather than the REST API's error shape, which an OAuth client
// cannot read.
import express, { type Express, type NextFunction, type Request, type Response } from 'express';
import { findUnsafeInput, isUnsafeText, toHttpAppError } from '@ordering/http';
import { sendHtml } from './interaction-page';
import { errorPage } from './sign-in-views';

const DESCRIPTION = 'a parameter holds a NUL character or an unpaired UTF-16 surrogate';

function basicCredentialsUnsafe(header: string | undefined): boolean {
  if (!header?.toLowerCase().startsWith('basic ')) return false;
  const decoded = Buffer.from(header.slice(6).trim(), 'base64').toString('utf8');
  let parts: string[];
  try {
    parts = decoded.split(':').map((p) => decodeURIComponent(p.replace(/\+/g, ' ')));
  } catch {
    return false; // the provider refuses malformed credentials itself
  }
  return parts.some(isUnsafeText);
}

function refuseUnreadableBody(req: Request, res: Response, next: NextFunction, err: unknown): void {
  const appError = toHttpAppError(err);
  if (appError.status >= 500) {
    next(err);
    return;
  }
  const description =
    appError.status === 413
      ? appError.message
      : appError.status === 415
        ? 'the request body must be application/x-www-form-urlencoded in UTF-8, without content encoding'
        : 'the request body is malformed';
  if (req.method === 'GET' && req.path === '/authorize') {
    sendHtml(res, appError.status, errorPage('invalid_request', description));
    return;
  }
  res
    .status(appError.status)
    .set('Cache-Control', 'no-store')
    .json({ error: 'invalid_request', error_description: description });
}

/** A string field of the OAuth form this guard parsed (`req.body`); undefined when absent or not a string. */
export function formField(req: Request, name: string): string | undefined {
  const value = (req.body as Record<string, unknown> | undefined)?.[name];
  return typeof value === 'string' ? value : undefined;
}

export function mountOAuthInputGuard(app: Express): void {
  // The provider reads an already parsed form body (`req.body`) as well as a stream.
  const form = express.urlencoded({ extended: false, limit: '56kb' });
  app.use('/oauth', (req: Request, res: Response, next: NextFunction) => {
    if (req.path.startsWith('/interaction/')) {
      next();
      return;
    }
    form(req, res, (err?: unknown) => {
      if (err) {
        refuseUnreadableBody(req, res, next, err);
        return;
      }
      const unsafe =
        findUnsafeInput(req.query) !== undefined ||
        findUnsafeInput(req.body) !== undefined ||
        basicCredentialsUnsafe(req.headers.authorization);
      if (!unsafe) {
        next();
        return;
      }
      if (req.method === 'GET' && req.path === '/authorize') {
        sendHtml(
          res,
          400,
          errorPage('invalid_request', `This sign-in request is not valid: ${DESCRIPTION}.`),
        );
        return;
      }
      res
        .status(400)
        .set('Cache-Control', 'no-store')
        .json({ error: 'invalid_request', error_description: DESCRIPTION });
    });
  });
}
