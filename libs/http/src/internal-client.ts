// Calls from one service to another's internal API (`/internal/...`, never routed by the gateway).
// Each call carries an internal identity signed with INTERNAL_IDENTITY_SECRET and a time bound; a
// service that cannot be reached, times out or fails (5xx) becomes 503 `service_unavailable` for
// the caller's own client, so nothing half-done is reported as success.
import { randomUUID } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { UnavailableError } from '@ordering/errors';
import { ATTR, recordError, startClientSpan } from '@ordering/telemetry';
import { IDENTITY_HEADER, INTERNAL_SCOPE, signIdentity } from './identity';

export interface InternalClientOptions {
  /** Base URL of the called service, e.g. http://catalog:8102 */
  baseUrl: string;
  /** INTERNAL_IDENTITY_SECRET */
  secret: string;
  /** The calling service's name (the identity's subject is `service:<caller>`). */
  caller: string;
  /** The called service's name, for error messages. */
  callee: string;
  /** Bound on one call; default 5 s. */
  timeoutMs?: number;
}

export interface InternalResponse<T = unknown> {
  status: number;
  body: T;
}

export class InternalApiClient {
  private readonly timeoutMs: number;
  private readonly transport: typeof http | typeof https;
  private readonly agent: http.Agent;

  constructor(private readonly options: InternalClientOptions) {
    this.timeoutMs = options.timeoutMs ?? 5000;
    const secure = new URL(options.baseUrl).protocol === 'https:';
    this.transport = secure ? https : http;
    // Connections kept open between calls (closed before the server's keep-alive timeout, which the
    // Agent reads from the answer's Keep-Alive header), none kept idle beyond 16.
    this.agent = new (secure ? https : http).Agent({ keepAlive: true, maxFreeSockets: 16 });
  }

  /**
   * One call; resolves with any 2xx or 4xx answer (the caller decides what a 404 means) and throws
   * UnavailableError for no answer, a timeout or a 5xx.
   */
  async request<T = unknown>(method: string, path: string, body?: unknown): Promise<InternalResponse<T>> {
    const { caller, callee } = this.options;
    const identity = signIdentity(
      {
        sub: `service:${caller}`,
        cust_id: '*',
        login: caller,
        client_id: `service:${caller}`,
        scopes: [INTERNAL_SCOPE],
        jti: randomUUID(),
        exp: Math.floor(Date.now() / 1000) + 60,
      },
      this.options.secret,
    );
    // A CLIENT span whose traceparent the called service continues.
    const { span, headers: trace } = startClientSpan(`${method} ${callee}`, { [ATTR.service]: callee });
    try {
      const answer = await this.send<T>(method, path, body, identity, trace);
      if (span.isRecording()) span.setAttribute('http.response.status_code', answer.status);
      return answer;
    } catch (err) {
      recordError(span, err);
      throw err;
    } finally {
      span.end();
    }
  }

  private async send<T>(
    method: string,
    path: string,
    body: unknown,
    identity: string,
    trace: Record<string, string>,
  ): Promise<InternalResponse<T>> {
    const { callee } = this.options;
    let answer: { status: number; text: string };
    try {
      answer = await this.exchange(method, path, body === undefined ? undefined : JSON.stringify(body), {
        ...trace,
        [IDENTITY_HEADER]: identity,
        accept: 'application/json',
      });
    } catch (cause) {
      throw Object.assign(new UnavailableError(`The ${callee} service is unavailable; retry later`), {
        cause,
      });
    }
    if (answer.status >= 500) {
      throw new UnavailableError(`The ${callee} service is unavailable; retry later`);
    }
    let parsed: unknown;
    try {
      parsed = answer.text ? JSON.parse(answer.text) : undefined;
    } catch (cause) {
      throw Object.assign(new UnavailableError(`The ${callee} service answered something other than JSON`), {
        cause,
      });
    }
    return { status: answer.status, body: parsed as T };
  }

  /**
   * One HTTP exchange on a kept-alive connection (node:http and its Agent: about half the CPU of
   * `fetch` per call, which was the largest single cost of placing an order), the whole exchange
   * (connect, answer, body) bounded by `timeoutMs`.
   */
  private exchange(
    method: string,
    path: string,
    payload: string | undefined,
    headers: Record<string, string>,
  ): Promise<{ status: number; text: string }> {
    return new Promise((resolve, reject) => {
      const req = this.transport.request(
        `${this.options.baseUrl}${path}`,
        {
          method,
          agent: this.agent,
          headers:
            payload === undefined
              ? headers
              : {
                  ...headers,
                  'content-type': 'application/json',
                  'content-length': Buffer.byteLength(payload),
                },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => {
            clearTimeout(timer);
            resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
          });
          res.on('error', fail);
          res.on('aborted', () => fail(new Error('the answer was cut short')));
        },
      );
      const timer = setTimeout(
        () => req.destroy(new Error(`no answer within ${this.timeoutMs} ms`)),
        this.timeoutMs,
      );
      function fail(err: Error) {
        clearTimeout(timer);
        reject(err);
      }
      req.on('error', fail);
      req.end(payload);
    });
  }

  /** An answer the caller did not expect (a 4xx it has no meaning for): treated as unavailable. */
  unexpected(res: InternalResponse, path: string): UnavailableError {
    return new UnavailableError(`The ${this.options.callee} service answered ${res.status} to ${path}`);
  }
}
