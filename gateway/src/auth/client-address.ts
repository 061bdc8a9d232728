// The address a request came from, which the rate limit of a request without a verified token is
// kept by. Behind a trusted proxy (TRUST_PROXY) it is the last `X-Forwarded-For` entry, the
// address that proxy saw: the entries before it are whatever the client wrote, so they are never
// trusted. Otherwise it is the connection's peer.
import type { IncomingMessage } from 'node:http';

export function clientAddress(req: IncomingMessage, trustProxy: boolean): string {
  const peer = req.socket.remoteAddress ?? 'unknown';
  if (!trustProxy) return peer;
  const header = req.headers['x-forwarded-for'];
  const value = Array.isArray(header) ? header.join(',') : header;
  if (!value) return peer;
  const last = value.slice(value.lastIndexOf(',') + 1).trim();
  return last || peer;
}
