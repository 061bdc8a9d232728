// Failures of the infrastructure rather than of the request or message: the database is down or
// restarting, a connection broke, the pool is exhausted, a serialization conflict. A consumer retries
// them without ever giving up on the message (it would dead-letter good messages during an outage);
// an HTTP request answers them 503 `service_unavailable` (libs/http error-middleware.ts), a
// dependency being down, not a bug: a retry (with the same Idempotency-Key where it creates) is safe.

const NODE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);
// PostgreSQL SQLSTATEs: connection exceptions (08), insufficient resources (53), operator
// intervention (57P01..57P03: shutdown, crash, cannot connect now), serialization failure and deadlock.
const PG_CODE_PREFIXES = ['08', '53', '57P'];
const PG_CODES = new Set(['40001', '40P01']);

export function isTransientInfrastructureError(err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    if (typeof e !== 'object') return false;
    const { code, name, message } = e as { code?: unknown; name?: unknown; message?: unknown };
    if (name === 'KnexTimeoutError') return true;
    if (typeof code === 'string') {
      if (NODE_CODES.has(code) || PG_CODES.has(code)) return true;
      if (PG_CODE_PREFIXES.some((p) => code.startsWith(p))) return true;
    }
    if (
      typeof message === 'string' &&
      /Connection terminated|connection is closed|Client has encountered a connection error/i.test(message)
    ) {
      return true;
    }
  }
  return false;
}
