// GET /v1/openapi.json: the document serialised once (at start-up), answered with a strong ETag and
// Cache-Control, and 304 to a request that already holds it (If-None-Match).
import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';

export interface OpenApiEndpointOptions {
  /** Seconds clients and caches may reuse the document without asking again. */
  maxAgeSeconds?: number;
}

/** Does an If-None-Match header name `etag` (or `*`)? Weak comparison, as RFC 9110 asks for GET. */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return ifNoneMatch.split(',').some((tag) => tag.trim() === '*' || opaque(tag) === opaque(etag));
}

export function openApiEndpoint(document: object, options: OpenApiEndpointOptions = {}): RequestHandler {
  const body = Buffer.from(JSON.stringify(document));
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  const cacheControl = `public, max-age=${options.maxAgeSeconds ?? 300}`;
  return (req, res) => {
    res.setHeader('ETag', etag);
    res.setHeader('Cache-Control', cacheControl);
    if (matches(req.get('if-none-match'), etag)) {
      res.status(304).end();
      return;
    }
    res.status(200).type('application/json').send(body);
  };
}
