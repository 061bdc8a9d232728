// What this library adds to Express's Request, declared on the core Request interface itself.
import type { Identity } from './identity';
import type { Logger } from './logger';

declare module 'express-serve-static-core' {
  interface Request {
    /** The request id (also the `X-Request-Id` response header). */
    id: string;
    /** A logger whose lines carry the request id (created on first use, see access-log.ts). */
    log: Logger;
    /** The caller's identity, set by `requireIdentity`. */
    identity?: Identity;
  }
}

export {};
