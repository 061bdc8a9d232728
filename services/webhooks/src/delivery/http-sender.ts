// One POST of a delivery to its endpoint: the spec's headers, a 10 s bound on the whole exchange,
// no redirects followed (undici's request never follows one) (a 3xx is an answer like any other non-2xx), and the connection made by
// UrlPolicy's own lookup (the checked address). Keep-alive connections are pooled per origin.
import { Agent, request } from 'undici';
import { printable } from '@ordering/http';
import { type UrlPolicy, UrlRefusedError } from './url-policy';

export const RESPONSE_EXCERPT_BYTES = 512;

export interface SendInput {
  url: string;
  body: string;
  headers: Record<string, string>;
}

export interface SendResult {
  ok: boolean;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  responseExcerpt: string | null;
  retryAfter?: string;
}

export class HttpSender {
  private readonly agent: Agent;

  constructor(
    private readonly policy: UrlPolicy,
    private readonly timeoutMs: number,
  ) {
    // No cap per origin: two subscriptions on one host must not share a pool that a hanging path can
    // fill. The worker bounds what is in flight, per subscription and in total.
    this.agent = new Agent({
      keepAliveTimeout: 30_000,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      connect: { timeout: timeoutMs, lookup: policy.connectLookup() },
    });
  }

  async send(input: SendInput): Promise<SendResult> {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    try {
      // Scheme and literal addresses (a literal IP never goes through the lookup).
      const url = this.policy.checkSyntax(input.url);
      if (/^\[?[0-9a-f:.]+\]?$/i.test(url.hostname)) await this.policy.resolveAllowed(url.hostname);
      const res = await request(url, {
        method: 'POST',
        dispatcher: this.agent,
        headers: input.headers,
        body: input.body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      const excerpt = await readExcerpt(res.body);
      const ok = res.statusCode >= 200 && res.statusCode < 300;
      const retryAfter = res.headers['retry-after'];
      return {
        ok,
        statusCode: res.statusCode,
        latencyMs: elapsed(),
        error: ok ? null : `HTTP ${res.statusCode}`,
        responseExcerpt: excerpt,
        ...(typeof retryAfter === 'string' ? { retryAfter } : {}),
      };
    } catch (err) {
      return {
        ok: false,
        statusCode: null,
        latencyMs: elapsed(),
        error: printable(describe(err)),
        responseExcerpt: null,
      };
    }
  }

  close(): Promise<void> {
    return this.agent.close();
  }
}

/**
 * The start of the response body, as far as it came within the time limit: the status line is the
 * answer, so a body that is slow to finish or breaks off changes nothing about the attempt's outcome
 * (a 2xx received in time is a success, not "no answer").
 */
async function readExcerpt(body: AsyncIterable<Buffer> & { destroy(): void }): Promise<string | null> {
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    for await (const chunk of body) {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= RESPONSE_EXCERPT_BYTES) break;
    }
  } catch {
    // Timed out or cut off after the status: keep what arrived.
  } finally {
    body.destroy();
  }
  if (size === 0) return null;
  // PostgreSQL text cannot hold U+0000: a receiver's NUL bytes (shown as `?`) would fail the insert
  // of the attempts.
  return printable(
    Buffer.concat(chunks)
      .subarray(0, RESPONSE_EXCERPT_BYTES)
      .toString('utf8')
      .replace(/\uFFFD+$/, ''),
  );
}

function describe(err: unknown): string {
  for (let e: unknown = err, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof UrlRefusedError) return `refused: ${e.message}`;
  }
  const e = err as {
    name?: string;
    code?: string;
    message?: string;
    cause?: { code?: string; message?: string };
  };
  if (
    e?.name === 'TimeoutError' ||
    e?.name === 'AbortError' ||
    e?.code === 'UND_ERR_HEADERS_TIMEOUT' ||
    e?.code === 'UND_ERR_BODY_TIMEOUT'
  ) {
    return 'timeout: no answer within the time limit';
  }
  if (e?.code === 'UND_ERR_CONNECT_TIMEOUT') return 'timeout: could not connect within the time limit';
  const code = e?.code ?? e?.cause?.code;
  const message = e?.cause?.message ?? e?.message ?? String(err);
  return code ? `${code}: ${message}` : message;
}
