// The JSON body parser of every app: bytes that are not UTF-8 are 400 invalid_json (decoding them
// would silently turn them into U+FFFD), and a parsed body holding unsafe text (NUL, lone
// surrogates) or nested deeper than MAX_INPUT_DEPTH is 422 invalid_value naming the place.
//
// Any JSON value is parsed, not only objects and arrays: `null`, `1`, `"x"` are JSON of the wrong
// type, which the route refuses (422 invalid_value, "must be a JSON object"), as it does `[]`; only
// bytes that are not JSON are 400 invalid_json.
import { isUtf8 } from 'node:buffer';
import express, { type RequestHandler } from 'express';
import { BadRequestError } from '@ordering/errors';
import { assertSafeInput } from './unsafe-text';

export interface JsonBodyOptions {
  /** Largest body, in the `bytes` notation ('1mb'); default '1mb'. */
  limit?: string;
  /** Media types parsed; default `application/json`. */
  type?: string | string[];
}

export function jsonBody(options: JsonBodyOptions = {}): RequestHandler[] {
  const parse = express.json({
    limit: options.limit ?? '1mb',
    ...(options.type ? { type: options.type } : {}),
    strict: false,
    verify: (_req, _res, buf, encoding) => {
      if (/^utf-?8$/i.test(encoding) && !isUtf8(buf)) {
        throw new BadRequestError('The request body is not valid UTF-8');
      }
    },
  });
  const check: RequestHandler = (req, _res, next) => {
    if (req.body !== undefined) assertSafeInput(req.body);
    next();
  };
  return [parse, check];
}
