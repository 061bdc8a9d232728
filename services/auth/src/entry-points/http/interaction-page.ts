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

/**
 * Where a sign-in or consent form's submission may end up: the client's redirect URI (its origin, or
 * its scheme for a native app's private-use scheme). Browsers apply `form-action` to every redirect
 * that follows a form post, and a finished sign-in redirects to the client with the code, so the
 * page must allow that one destination (validated against the client's registration before any
 * interaction starts) besides itself.
 */
export function redirectTargetOf(details: { params: Record<string, unknown> }): string | undefined {
  const uri = details.params.redirect_uri;
  if (typeof uri !== 'string') return undefined;
  try {
    const url = new URL(uri);
    const target = url.protocol === 'http:' || url.protocol === 'https:' ? url.origin : url.protocol;
    return /^[A-Za-z0-9.+:/[\]-]+$/.test(target) ? target : undefined;
  } catch {
    return undefined;
  }
}

export function sendHtml(res: Response, status: number, html: string, redirectTarget?: string): void {
  const formAction = redirectTarget ? `'self' ${redirectTarget}` : "'self'";
  res.status(status).set({
    'Content-Type': 'text/html; charset=utf-8',
    'Cache-Control': 'no-store',
    'Content-Security-Policy': `default-src 'none'; style-src 'unsafe-inline'; form-action ${formAction}; frame-ancestors 'none'`,
    'X-Frame-Options': 'DENY',
  });
  res.send(html);
}

export async function clientName(provider: Provider, clientId: string): Promise<string> {
  const client = await provider.Client.find(clientId);
  return client?.clientName ?? clientId;
}
