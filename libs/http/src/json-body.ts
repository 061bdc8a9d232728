// The JSON body parser of every app: bytes that are not UTF-8 are 400 invalid_json (decoding them
// would silently turn them into U+FFFD), and a parsed body holding unsafe text (NUL, lone
// surrogates) or nested deeper than MAX_INPUT_DEPTH is 422 invalid_value naming the place.
//
// Any JSON value is parsed, not only objects and arrays: `null`, `1`, `"x"` are JSON of the wrong
// type, which the route refuses (422 invalid_value, "must be a JSON object"), as it does `[]`; only
// bytes that are not JSON are 400 invalid_json. A body in another media type (text/plain, a form,
// none named) is 415 unsupported_media_type on POST, PUT and PATCH, instead of reaching the route
// as "no body" and being refused as a missing object (or, where the body is optional, ignored).
import type { IncomingMessage } from 'node:http';
import { isUtf8 } from 'node:buffer';
import express, { type RequestHandler } from 'express';
import { BadRequestError, UnsupportedMediaTypeError } from '@ordering/errors';
import { assertSafeInput } from './unsafe-text';

/** The media types read as JSON: `application/json` and the `+json` suffix types, any parameters. */
export const JSON_MEDIA_TYPES = ['application/json', 'application/*+json'];

/** Methods whose body the API reads; a body of GET, HEAD, DELETE or OPTIONS is not read at all. */
const BODY_METHODS = new Set(['POST', 'PUT', 'PATCH']);

export interface JsonBodyOptions {
  /** Largest body, in the `bytes` notation ('1mb'); default '1mb'. */
  limit?: string;
  /** Media types parsed; default JSON_MEDIA_TYPES. */
  type?: string | string[];
  /**
   * `refuse` (default): a POST, PUT or PATCH with a body in another media type is 415
   * unsupported_media_type. `pass`: it goes on unparsed (an app that reads forms itself).
   */
  otherMediaTypes?: 'refuse' | 'pass';
}

/**
 * Whether the request carries a body: a non-zero `Content-Length`, or a `Transfer-Encoding`
 * (chunked). A request without either, or with `Content-Length: 0`, has none.
 */
export function hasRequestBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  return (length !== undefined && length !== '0') || req.headers['transfer-encoding'] !== undefined;
}

/**
 * 415 unsupported_media_type for a POST, PUT or PATCH whose body is not of `types`: what `jsonBody`
 * does by default, for the routes of an app that passes other media types on (`otherMediaTypes:
 * 'pass'`) but takes only JSON on them.
 */
export function refuseOtherMediaTypes(types: string | string[] = JSON_MEDIA_TYPES): RequestHandler {
  return (req, _res, next) => {
    if (BODY_METHODS.has(req.method) && hasRequestBody(req) && !req.is(types)) {
      throw new UnsupportedMediaTypeError();
    }
    next();
  };
}

export function jsonBody(options: JsonBodyOptions = {}): RequestHandler[] {
  const types = options.type ?? JSON_MEDIA_TYPES;
  const parse = express.json({
    limit: options.limit ?? '1mb',
    type: types,
    strict: false,
    verify: (_req, _res, buf, encoding) => {
      if (/^utf-?8$/i.test(encoding) && !isUtf8(buf)) {
        throw new BadRequestError('The request body is not valid UTF-8');
      }
    },
  });
  // A body of GET, HEAD, DELETE or OPTIONS is not read at all: no route takes one, and the OpenAPI
  // document lists 400 invalid_json and 413 only for operations with a body.
  const parseBodyMethods: RequestHandler = (req, res, next) => {
    if (!BODY_METHODS.has(req.method)) {
      next();
      return;
    }
    parse(req, res, next);
  };
  const mediaType = refuseOtherMediaTypes(types);
  const check: RequestHandler = (req, _res, next) => {
    if (req.body !== undefined) assertSafeInput(req.body);
    next();
  };
  return options.otherMediaTypes === 'pass'
    ? [parseBodyMethods, check]
    : [mediaType, parseBodyMethods, check];
}
