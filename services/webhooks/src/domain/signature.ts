// `Service-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>...]`: HMAC-SHA256 of `${t}.${body}` with
// each active secret (the current one first, then a rotated-out one during its 24 h overlap).
import { createHmac } from 'node:crypto';

export function signatureHeader(body: string, secrets: readonly string[], timestampSeconds: number): string {
  const signed = `${timestampSeconds}.${body}`;
  const v1 = secrets.map((s) => `v1=${createHmac('sha256', s).update(signed).digest('hex')}`);
  return [`t=${timestampSeconds}`, ...v1].join(',');
}
