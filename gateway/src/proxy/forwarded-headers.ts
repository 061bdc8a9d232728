// Which headers cross the gateway. Hop-by-hop headers (RFC 9110 section 7.6.1) belong to one
// connection and never do. Towards a service, the client's credentials and anything claiming to be
// internal (`X-Ordering-*`) are dropped; the gateway adds the signed identity, the request id and
// `X-Forwarded-*`. End-to-end headers pass unchanged, except the client's trace context: the
// gateway starts the platform's own trace and sends its forwarding span's `traceparent` instead.
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';

const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'http2-settings',
]);

/** Never forwarded to a service: set by the gateway, or the caller's credentials. */
const REPLACED_UPSTREAM = new Set(['host', 'expect', 'authorization', 'cookie', 'x-request-id', 'forwarded']);
const INTERNAL_PREFIX = 'x-ordering-';

/** The client's W3C trace context: never the platform's (see app.ts). */
const CLIENT_TRACE_CONTEXT = new Set(['traceparent', 'tracestate', 'baggage']);
const FORWARDED_PREFIX = 'x-forwarded-';

/** Never copied from a service's response: the gateway's own values win. */
const REPLACED_DOWNSTREAM = new Set([
  'x-request-id',
  // The service names its own span; the client gets the gateway's, the root of the trace.
  'traceresponse',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
]);

export type HeaderValue = string | string[];

/** `Connection: close` lists a header named `close` (none exists, but it would be dropped). */
const CLOSE_LISTED = new Set(['close']);

/** Header names listed in `Connection` are hop-by-hop for this message too. */
function connectionListed(value: string | string[] | undefined): Set<string> | undefined {
  if (value === undefined) return undefined;
  // The values nearly every message carries, without splitting them: `keep-alive` is hop-by-hop
  // already.
  if (value === 'keep-alive') return undefined;
  if (value === 'close') return CLOSE_LISTED;
  const tokens = (Array.isArray(value) ? value.join(',') : value)
    .split(',')
    .map((t) => t.trim().toLowerCase())
    .filter(Boolean);
  return tokens.length > 0 ? new Set(tokens) : undefined;
}

export interface UpstreamHeaderValues {
  requestId: string;
  identity: string;
  /** Trust `X-Forwarded-*` already on the request (a load balancer in front). */
  trustProxy: boolean;
}

export function upstreamRequestHeaders(
  req: IncomingMessage,
  values: UpstreamHeaderValues,
): Record<string, HeaderValue> {
  const incoming = req.headers;
  const listed = connectionListed(incoming.connection);
  const out: Record<string, HeaderValue> = {};
  // for-in, not Object.entries: no array of pairs per request (Node's headers object has no
  // inherited enumerable keys).
  for (const name in incoming) {
    const value = incoming[name];
    if (value === undefined) continue;
    if (HOP_BY_HOP.has(name) || REPLACED_UPSTREAM.has(name) || listed?.has(name)) continue;
    if (CLIENT_TRACE_CONTEXT.has(name)) continue;
    if (name.startsWith(INTERNAL_PREFIX) || name.startsWith(FORWARDED_PREFIX)) continue;
    out[name] = value;
  }
  setForwardedFor(out, req, values.trustProxy);
  out['x-request-id'] = values.requestId;
  out['x-ordering-identity'] = values.identity;
  return out;
}

function first(value: string | string[] | undefined): string | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  return v?.split(',')[0]?.trim() || undefined;
}

function setForwardedFor(out: Record<string, HeaderValue>, req: IncomingMessage, trustProxy: boolean): void {
  const h: IncomingHttpHeaders = req.headers;
  const peer = req.socket.remoteAddress ?? '';
  const ownProto = (req.socket as TLSSocket).encrypted ? 'https' : 'http';
  const priorFor = trustProxy ? h['x-forwarded-for'] : undefined;
  out['x-forwarded-for'] = priorFor
    ? `${Array.isArray(priorFor) ? priorFor.join(', ') : priorFor}, ${peer}`
    : peer;
  out['x-forwarded-proto'] = (trustProxy ? first(h['x-forwarded-proto']) : undefined) ?? ownProto;
  out['x-forwarded-host'] = (trustProxy ? first(h['x-forwarded-host']) : undefined) ?? h.host ?? '';
}

/** Sets a service's response headers on the client's response, as the client gets them. */
export function setDownstreamResponseHeaders(
  res: { setHeader(name: string, value: HeaderValue): unknown },
  headers: Record<string, string | string[] | undefined>,
): void {
  const listed = connectionListed(headers.connection);
  for (const name in headers) {
    const value = headers[name];
    if (value === undefined) continue;
    if (HOP_BY_HOP.has(name) || REPLACED_DOWNSTREAM.has(name) || listed?.has(name)) continue;
    res.setHeader(name, value);
  }
}
