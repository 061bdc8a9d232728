// What this library adds to Express's Request. It augments the core Request interface itself:
// pino-http types `IncomingMessage.id` loosely (string | number | object), and only a declaration
// on the derived interface narrows `req.id` to the string the request-id middleware sets.
import type { Identity } from './identity';

declare module 'express-serve-static-core' {
  interface Request {
    /** The request id (also the `X-Request-Id` response header). */
    id: string;
    /** The caller's identity, set by `requireIdentity`. */
    identity?: Identity;
  }
}

export {};
