// Forwards one request to a service and streams its answer back, both bodies unbuffered. Failures
// before the service answered become API errors (503 service_unavailable, 504 upstream_timeout,
// 413 body_too_large); the service's own answers, errors included, pass through unchanged.
import { Readable } from 'node:stream';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Dispatcher, Pool } from 'undici';
import { AppError, PayloadTooLargeError, UnavailableError } from '@ordering/errors';
import { type Logger, continueRequest, hasRequestBody as hasBody } from '@ordering/http';
import { type HeaderValue, setDownstreamResponseHeaders } from './forwarded-headers';

export interface ForwardOptions {
  pool: Pool;
  /** For logs. */
  service: string;
  headers: Record<string, HeaderValue>;
  /** Until the service's response headers arrive, queueing and connecting included. */
  timeoutMs: number;
  bodyLimitBytes: number;
  /** The request's logger (made on first use). */
  log: () => Logger;
}

interface Attempt {
  timedOut: boolean;
  bodyTooLarge: boolean;
  /** The service's status and headers went out to the client. */
  responding: boolean;
}

/** Errors of a pooled keep-alive socket the service closed just as it was reused. */
const STALE_SOCKET_CODES = new Set(['UND_ERR_SOCKET', 'ECONNRESET', 'EPIPE']);

/**
 * The request body as the service gets it, refusing more than `limit` bytes. Only now, admitted
 * and under the declared limit, does a client waiting for `100 Continue` get it.
 */
function requestBody(
  req: IncomingMessage,
  res: ServerResponse,
  limit: number,
  attempt: Attempt,
): Dispatcher.DispatchOptions['body'] {
  if (!hasBody(req)) return null;
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared)) {
    // Node's parser never delivers more than Content-Length: the header alone decides.
    if (declared > limit) throw new PayloadTooLargeError(`The request body is larger than ${limit} bytes`);
    continueRequest(req, res);
    return req;
  }
  continueRequest(req, res);
  return Readable.from(
    (async function* counted() {
      let received = 0;
      for await (const chunk of req as AsyncIterable<Buffer>) {
        received += chunk.length;
        if (received > limit) {
          attempt.bodyTooLarge = true;
          throw new PayloadTooLargeError(`The request body is larger than ${limit} bytes`);
        }
        yield chunk;
      }
    })(),
    { objectMode: false },
  );
}

function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

function failureOf(err: unknown, attempt: Attempt, limit: number): AppError {
  if (attempt.bodyTooLarge) return new PayloadTooLargeError(`The request body is larger than ${limit} bytes`);
  if (attempt.timedOut || errorCode(err) === 'UND_ERR_HEADERS_TIMEOUT') {
    return new UnavailableError(
      'A service behind the API did not answer in time; retry later',
      'upstream_timeout',
    );
  }
  return new UnavailableError();
}

/**
 * Sends the request and streams the answer into `res` (undici writes it there directly). Resolves
 * once the response is complete; rejects before the service answered (nothing sent to the client
 * yet) or, with `attempt.responding` set, when the response broke off midway.
 */
async function send(
  req: IncomingMessage,
  res: ServerResponse,
  options: ForwardOptions,
  attempt: Attempt,
): Promise<void> {
  const body = requestBody(req, res, options.bodyLimitBytes, attempt);
  const controller = new AbortController();
  const timer = setTimeout(() => {
    attempt.timedOut = true;
    controller.abort();
  }, options.timeoutMs);
  // The client gave up before the service answered: so does the gateway.
  const onClientGone = () => controller.abort();
  res.on('close', onClientGone);
  try {
    await options.pool.stream(
      {
        method: req.method as Dispatcher.HttpMethod,
        path: req.url ?? '/',
        headers: options.headers,
        body,
        signal: controller.signal,
      },
      ({ statusCode, headers }) => {
        clearTimeout(timer);
        res.off('close', onClientGone);
        attempt.responding = true;
        res.statusCode = statusCode;
        setDownstreamResponseHeaders(res, headers);
        return res;
      },
    );
  } finally {
    clearTimeout(timer);
    res.off('close', onClientGone);
  }
}

export async function forwardRequest(
  req: IncomingMessage,
  res: ServerResponse,
  options: ForwardOptions,
): Promise<void> {
  const retryable = !hasBody(req) && (req.method === 'GET' || req.method === 'HEAD');
  for (let tries = 1; ; tries++) {
    const attempt: Attempt = { timedOut: false, bodyTooLarge: false, responding: false };
    try {
      await send(req, res, options, attempt);
      return;
    } catch (err) {
      if (err instanceof AppError) throw err; // refused before anything was sent (413)
      if (attempt.responding) {
        // The service's body broke off, or the client went away: undici has ended the response.
        options.log().warn({ err, service: options.service }, 'response stream ended early');
        return;
      }
      if (res.destroyed) return; // The client is gone; there is no one to answer.
      if (retryable && tries === 1 && !attempt.timedOut && STALE_SOCKET_CODES.has(errorCode(err) ?? ''))
        continue;
      options.log().warn({ err, service: options.service }, 'forwarding failed');
      throw failureOf(err, attempt, options.bodyLimitBytes);
    }
  }
}
