// Headers of every page: a strict Content-Security-Policy (no script at all, styles and images from
// this origin only, forms post to this origin only, never framed), no sniffing, no referrer to other sites, and
// pages never cached (they show account data and, once, secrets).
import type { RequestHandler } from 'express';

export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "style-src 'self'",
  "img-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

export function securityHeaders(options: { hsts: boolean }): RequestHandler {
  return (_req, res, next) => {
    res.set({
      'Content-Security-Policy': CONTENT_SECURITY_POLICY,
      'X-Content-Type-Options': 'nosniff',
      'X-Frame-Options': 'DENY',
      // same-origin, not no-referrer: with no-referrer browsers send `Origin: null` on the portal's own form posts.
      'Referrer-Policy': 'same-origin',
      'Cross-Origin-Opener-Policy': 'same-origin',
      'Cross-Origin-Resource-Policy': 'same-origin',
      'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=()',
      'Cache-Control': 'no-store',
      ...(options.hsts ? { 'Strict-Transport-Security': 'max-age=31536000; includeSubDomains' } : {}),
    });
    next();
  };
}
