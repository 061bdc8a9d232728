// What every sign-in page response shares: the CSRF token of an interaction (HMAC of its uid under
// the cookie key) and the HTML headers (no caching, strict CSP, no framing).
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Response } from 'express';
import type Provider from 'oidc-provider';

export function csrfTokenFor(key: string, uid: string): string {
  return createHmac('sha256', key).update(`csrf:${uid}`).digest('base64url');
}

export function csrfValid(key: string, uid: string, given: unknown): boolean {
  if (typeof given !== 'string') return false;
  const expected = Buffer.from(csrfTokenFor(key, uid));
  const actual = Buffer.from(given);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

export function sendHtml(res: Response, status: number, html: string): void {
  res.status(status).set({
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    'Content-Security-Policy':
      "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'",
    'X-Frame-Options': 'DENY',
  });
  res.send(html);
}

export async function clientName(provider: Provider, clientId: string): Promise<string> {
  const client = await provider.Client.find(clientId);
  return client?.clientName ?? clientId;
}
