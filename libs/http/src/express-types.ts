// What this library adds to Express's Request.
import type { Identity } from './identity';

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      /** The request id (also the `X-Request-Id` response header). */
      id: string;
      /** The caller's identity, set by `requireIdentity`. */
      identity?: Identity;
    }
  }
}

export {};
